# SYNTAX TEST "source.hcl" "blocks, attributes, expressions and comments"
resource "aws_instance" web {
# <-------- entity.name.type.hcl
#        ^^^^^^^^^^^^^^ entity.name.tag.hcl
#                       ^^^ entity.name.tag.hcl
  ami   = "ami-${var.id}\n" # trailing
# ^^^ variable.other.property.hcl
#       ^ keyword.operator.assignment.hcl
#         ^^^^^ string.quoted.double.hcl
#              ^^ punctuation.section.interpolation.begin.hcl
#                ^^^ variable.other.hcl
#                       ^^ constant.character.escape.hcl
#                           ^^^^^^^^^^ comment.line.number-sign.hcl
  count = max(1, 2.5e3) + length(list) // two
# ^^^^^ variable.other.property.hcl
#         ^^^ support.function.hcl
#                ^^^^^ constant.numeric.hcl
#                       ^ keyword.operator.hcl
#                                      ^^^^^^ comment.line.double-slash.hcl
  ok    = true
#         ^^^^ constant.language.hcl
  names = [for s in list : upper(s) if s != null]
#          ^^^ keyword.control.hcl
#                ^^ keyword.control.hcl
#                                   ^^ keyword.control.hcl
  /* block */
# ^^^^^^^^^^^ comment.block.hcl
}
