crlf   =  1
block {
      x=2 # c
}
