broken "x" {
  a = [1, 2
  b = 3
}

good "y" {
  c = 4
}
