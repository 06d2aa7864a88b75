escape     = "bad \q escape"
unicode    = "\u12"
unterminated = "no end
char       = 1 @ 2
comment    = 1 /* never closed
