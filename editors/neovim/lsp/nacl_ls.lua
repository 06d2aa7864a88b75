-- nacl-ls for Neovim 0.11+: Neovim reads this file when `vim.lsp.enable("nacl_ls")` runs and this
-- folder is on 'runtimepath'. NACL_LS overrides the command (a path to the binary). It serves NaCl,
-- HCL and ARMLang buffers; add "terraform" and "terraform-vars" to `filetypes` to have it serve Terraform
-- files too (left out so as not to clash with terraform-ls).
return {
  cmd = { vim.env.NACL_LS or "nacl-ls" },
  filetypes = { "nacl", "hcl", "armlang" },
  root_markers = { "salto.config", ".git" },
}
