good   =   1
broken {
  a =   [1,
}
also_good   =   2
