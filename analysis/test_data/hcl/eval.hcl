# Each attribute is evaluated in the context of analysis/tests/hcl_eval.rs; eval.values holds the
# expected values (UPDATE_EXPECT=1 rewrites it).

# Literals and arbitrary precision
integer        = 42
decimal        = 1.5e3
point_sum      = 0.1 + 0.2
exact_equality = 0.1 + 0.2 == 0.3
big            = 123456789012345678901234567890 * 10
third          = 1 / 3
remainder      = 7 % 3
neg_remainder  = -7 % 3
precedence     = 1 + 2 * 3 - 4 / 2
grouping       = (1 + 2) * 3
unary          = -num + 1
not            = !false
compare        = [1 < 2, 2 <= 2, 3 > 4, 4 >= 5]
logic          = [true && false, true || false, !true]
equality       = [1 == 1, "a" == "a", 1 == "1", null == null, null_str == null, [1, 2] == [1, 2]]
inequality     = "a" != "b"
string_math    = "1" + 2
bool_strings   = "true" && true
division_zero  = [1 / 0, -1 / 0, 5 % 0]
zero_by_zero   = 0 / 0

# Conditionals unify their results
cond_number = true ? 1 : 2
cond_unify  = false ? 1 : "two"
cond_string = num > 2 ? "big" : "small"

# Templates
plain       = "hello"
escapes     = "tab\tquote\"unicode\u00e9 \U0001F600"
interp      = "${str}, ${num} and ${true}"
unwrapped   = "${list}"
literal_seq = "$${not} %%{this}"
directive   = "%{ if num > 2 }many%{ else }few%{ endif }"
loop        = "%{ for i, x in list }${i}=${x};%{ endfor }"
strip       = "a  ${~ str ~}  b"
strip_loop  = <<EOT
%{ for x in list ~}
- ${x}
%{ endfor ~}
EOT
heredoc     = <<EOT
  kept ${str}
EOT
flush       = <<-EOT
    four
      six
    four
    EOT

# Collections, traversal and splats
tuple       = [1, "a", true]
object      = { a = 1, "b" = 2, (str) = 3, c : 4 }
attr        = obj.name
index_list  = list[1]
index_map   = map["y"]
legacy      = tuple_var.0
nested      = obj.items[1].id
attr_splat  = obj.items.*.id
full_splat  = obj.items[*].id
splat_index = obj.items[*].tags[0]
splat_single = obj.*.name
splat_null  = null_str[*]

# For expressions
for_tuple   = [for x in list : upper(x)]
for_index   = [for i, x in list : i if i != 1]
for_object  = { for k, v in map : v => k }
for_group   = { for x in ["a", "b", "a"] : x => x... }
for_map     = { for k, v in map : upper(k) => v * 2 }

# Calls
call        = upper("abc")
variadic    = max(1, 5, 3)
expand      = max(numbers...)

# Unknown values stay unknown
unknown_sum = dyn + 1
unknown_str = "a${dyn}"

# Errors
no_variable = missing
no_attr     = obj.nope
out_of_range = list[5]
bad_operand = "x" * 2
no_function = lower("A")
wrong_arity = upper("a", "b")
duplicate_key = { for x in ["a", "a"] : x => x }
bad_interp  = "${list} and more"
