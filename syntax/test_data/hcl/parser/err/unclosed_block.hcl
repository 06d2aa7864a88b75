before = 1

block "a" {
  inner = 2
