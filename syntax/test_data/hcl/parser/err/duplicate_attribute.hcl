a = 1
block {
  a = 2
  a = 3
}
a = 4
