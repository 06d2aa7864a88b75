missing   =
operator  = 1 +
cond      = a ? b
index     = a[1
legacy    = a.0.1
dot       = a.
call      = f(1 2)
tuple     = [1 2]
object    = { a = 1 b = 2 }
separator = { a 1 }
for_bad   = [for in x : y]
for_obj   = { for k, v in m : k }
after     = "still parsed"
