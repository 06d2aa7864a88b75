resource "a" "b" {
name = "x"
    tags = {
  k = "v"
      }
list = [
1,
      2,
]
nested {
deep {
value = f(
1,
2)
}
}
}
