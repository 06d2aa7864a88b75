service "web" {
port=8080
  tags = [1 2]
}
