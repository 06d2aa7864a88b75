# A line comment
// Another line comment
/* A block
   comment */
name    = "value"
count   = 3
enabled = true

resource "aws_instance" web {
  ami = "ami-123"

  nested {
    deep = null
  }
}

empty {}
one_line "x" { key = 1 }
dashed-name = 1
ünïcode_ident = 2
