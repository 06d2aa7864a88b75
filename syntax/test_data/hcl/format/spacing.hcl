ops = a+b*c-d/e%f
cmp = a==b&&c!=d||e<f&&g>=h
neg = - 1 + -x * ( - y )
not = ! a
call = f ( 1 , 2 , x ... )
idx = a [ 0 ] . b . * . c
full = a [ * ] . b
cond = a?b:c
fo = [ for  k , v  in  m : v  if  k ]
ob = { for k, v in m : k => v ... }
empty_obj = { }
empty_tuple = [ ]
obj = {a=1,b=2}
tmpl = "${ a } and %{ if b }c%{ endif } ${~ d ~}"
