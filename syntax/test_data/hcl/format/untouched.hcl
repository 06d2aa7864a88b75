doc = <<-EOT
      keep   these    spaces
    ${  x  }
  EOT
plain = <<EOT
  as   it   is
EOT
str = "  spaces   inside  "
/* a   block
      comment */
#   odd    comment
