# hcldec-spec: specs/app.hcldec
name = "web"
prot = 80
