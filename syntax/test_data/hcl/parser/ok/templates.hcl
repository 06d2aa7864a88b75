greeting = "Hello, ${name}!"
escapes  = "tab\t quote\" unicode\u00e9 \U0001F600 literal $${x} %%{y}"
cond     = "%{ if enabled }on%{ else }off%{ endif }"
loop     = "%{ for i, x in xs ~}${x}, %{~ endfor }"
strip    = "${~ value ~}"
nested   = "${ { a = "b" }.a }"
heredoc  = <<EOT
Hello ${name}
  indented line
EOT
indented = <<-EOT
    stripped ${x}
  EOT
