-- NaCl, HCL and ARMLang files and the nacl-ls language server for Neovim 0.11+.
vim.filetype.add({ extension = { nacl = "nacl", hcldec = "hcl", nomad = "hcl", arm = "armlang" } })

--- The full element ID at the cursor, from the server's `nacl.copyReference` command.
local function element_id_at_cursor()
  local client = vim.lsp.get_clients({ bufnr = 0, name = "nacl_ls" })[1]
  if not client then
    return nil
  end
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  local response = client:request_sync("workspace/executeCommand", { command = "nacl.copyReference", arguments = { params } }, 2000, 0)
  return response and response.result or nil
end

-- The command of the server's reference-count code lenses: the references in the quickfix list.
vim.lsp.commands["nacl.showReferences"] = function(command)
  local locations = command.arguments and command.arguments[3] or {}
  local client = vim.lsp.get_clients({ name = "nacl_ls" })[1]
  local items = vim.lsp.util.locations_to_items(locations, client and client.offset_encoding or "utf-16")
  vim.fn.setqflist({}, " ", { title = "NaCl references", items = items })
  vim.cmd("copen")
end

--- Shows the JSON a server command answers for a buffer (`nacl.hcldec.decodedJson`: what an HCL
--- buffer decodes to with its hcldec spec; `nacl.arm.template`: an ARMLang buffer's ARM template) in
--- a scratch buffer beside it; the server says why when there is none.
local function show_server_json(server_command, uri)
  local bufnr = uri and vim.uri_to_bufnr(uri) or 0
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = "nacl_ls" })[1]
  if not client then
    return
  end
  uri = uri or vim.uri_from_bufnr(0)
  client:request("workspace/executeCommand", { command = server_command, arguments = { { uri = uri } } }, function(err, result)
    if err or type(result) ~= "string" then
      return
    end
    vim.cmd("vnew")
    local scratch = vim.api.nvim_get_current_buf()
    vim.bo[scratch].buftype = "nofile"
    vim.bo[scratch].bufhidden = "wipe"
    vim.api.nvim_buf_set_lines(scratch, 0, -1, false, vim.split(result, "\n", { plain = true }))
    vim.bo[scratch].filetype = "json"
    vim.bo[scratch].modified = false
  end, bufnr)
end

-- The command of the server's "Show decoded JSON" code lens on HCL files an hcldec spec describes.
vim.lsp.commands["nacl.showDecodedJson"] = function(command)
  local argument = command.arguments and command.arguments[1] or {}
  show_server_json("nacl.hcldec.decodedJson", argument.uri)
end

-- The command of the server's "Show ARM template" code lens on ARMLang files.
vim.lsp.commands["nacl.showArmTemplate"] = function(command)
  local argument = command.arguments and command.arguments[1] or {}
  show_server_json("nacl.arm.template", argument.uri)
end

vim.api.nvim_create_autocmd("FileType", {
  pattern = "armlang",
  callback = function(args)
    vim.bo[args.buf].commentstring = "// %s"
    vim.api.nvim_buf_create_user_command(args.buf, "NaclShowArmTemplate", function()
      show_server_json("nacl.arm.template", nil)
    end, { desc = "Show the ARM template this ARMLang file compiles to" })
  end,
})

vim.api.nvim_create_autocmd("FileType", {
  pattern = "hcl",
  callback = function(args)
    vim.api.nvim_buf_create_user_command(args.buf, "NaclShowDecodedJson", function()
      show_server_json("nacl.hcldec.decodedJson", nil)
    end, { desc = "Show the JSON this HCL file decodes to with its hcldec spec" })
  end,
})

vim.api.nvim_create_autocmd("FileType", {
  pattern = "nacl",
  callback = function(args)
    vim.bo[args.buf].commentstring = "// %s"
    vim.api.nvim_buf_create_user_command(args.buf, "NaclCopyReference", function()
      local id = element_id_at_cursor()
      if not id then
        vim.notify("No NaCl element here", vim.log.levels.WARN)
        return
      end
      vim.fn.setreg('"', id)
      pcall(vim.fn.setreg, "+", id) -- the system clipboard, when Neovim has one
      vim.notify("Copied " .. id)
    end, { desc = "Copy the full element ID at the cursor" })
    vim.api.nvim_buf_create_user_command(args.buf, "NaclGoToService", function()
      local client = vim.lsp.get_clients({ bufnr = 0, name = "nacl_ls" })[1]
      if not client then
        return
      end
      -- The server opens the URL (`window/showDocument`) or says why there is none.
      local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
      client:request("workspace/executeCommand", { command = "nacl.goToService", arguments = { params } }, function() end, 0)
    end, { desc = "Open the element at the cursor in its service" })
  end,
})

vim.lsp.enable("nacl_ls")
