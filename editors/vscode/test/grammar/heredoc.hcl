# SYNTAX TEST "source.hcl" "heredocs keep their content and templates"
doc = <<-EOT
#     ^^^ keyword.operator.heredoc.hcl
#        ^^^ keyword.control.heredoc-token.hcl
  # not a comment ${name} %{ if x }y%{ endif }
# ^^^^^^^^^^^^^^^ string.unquoted.heredoc.hcl
#                   ^^^^ variable.other.hcl
#                            ^^ keyword.control.hcl
  EOT
# ^^^ keyword.control.heredoc-token.hcl
after = 1
# <----- variable.other.property.hcl
