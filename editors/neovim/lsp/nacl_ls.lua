-- nacl-ls for Neovim 0.11+: Neovim reads this file when `vim.lsp.enable("nacl_ls")` runs and this
-- folder is on 'runtimepath'. NACL_LS overrides the command (a path to the binary).
return {
  cmd = { vim.env.NACL_LS or "nacl-ls" },
  filetypes = { "nacl" },
  root_markers = { "salto.config", ".git" },
}
