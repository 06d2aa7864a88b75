a = 1
long_name = 2
mid   =   3

after_blank=4
x = { inner = 1 }  # comment
yy = 2 # another
zzz = [ 1,2 ]     // and another
