-- NaCl files and the nacl-ls language server for Neovim 0.11+.
vim.filetype.add({ extension = { nacl = "nacl" } })

vim.api.nvim_create_autocmd("FileType", {
  pattern = "nacl",
  callback = function()
    vim.bo.commentstring = "// %s"
  end,
})

vim.lsp.enable("nacl_ls")
