precedence  = 1 + 2 * 3 - 4 / 5 % 6
comparison  = a < b && c >= d || !e == f != g
unary       = -x + !y
conditional = a ? b : c ? d : e
traversal   = a.b[0].c["d"].0
attr_splat  = list.*.id
full_splat  = list[*].tags["k"]
call        = max(1, 2, 3)
expand      = min(numbers...)
nested_call = upper(lower("A"))
paren       = (1 + 2) * 3
tuple       = [1, "two", [3], { four = 4 }]
object = {
  a     = 1
  "b"   = 2
  c : 3,
  (key) = 4
}
for_tuple  = [for i, v in list : v if i < 2]
for_object = { for k, v in map : k => v... if v != null }
multiline = [
  1,
  2,
]
args = f(
  1,
  2
)
