a { x = 1, y = 2 }
b { x = 1
}
c { nested {} }
after = 1
