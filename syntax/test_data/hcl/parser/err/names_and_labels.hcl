"quoted" = 1
block "a${b}" {
}
block 1 {
}
1 = 2
after = true
