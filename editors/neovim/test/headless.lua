-- A headless Neovim session against the real nacl-ls: open the demo workspace, wait for
-- diagnostics, then check definition, hover and formatting through Neovim's own LSP client.
-- Run from the repository root: NACL_LS=target/debug/nacl-ls nvim --headless --clean -l editors/neovim/test/headless.lua
local root = vim.fn.getcwd()
vim.opt.runtimepath:prepend(root .. "/editors/neovim")
vim.cmd.runtime("plugin/nacl.lua")

local failures = {}
local function check(ok, what)
  print((ok and "ok   " or "FAIL ") .. what)
  if not ok then
    table.insert(failures, what)
  end
end

local function open(path)
  vim.cmd.edit(vim.fn.fnameescape(root .. "/" .. path))
  local buf = vim.api.nvim_get_current_buf()
  local attached = vim.wait(10000, function()
    return #vim.lsp.get_clients({ bufnr = buf, name = "nacl_ls" }) > 0
  end)
  check(attached, "the client attaches to " .. path)
  return buf
end

--- The codes of a buffer's diagnostics, comma-separated, once `done(codes)` holds (or after 10 s).
local function diagnostic_codes(buf, done)
  local codes = ""
  vim.wait(10000, function()
    local found = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      table.insert(found, d.code)
    end
    codes = table.concat(found, ",")
    return done(codes)
  end)
  return codes
end

local function position(buf, line, needle)
  local text = vim.api.nvim_buf_get_lines(buf, line, line + 1, false)[1]
  return { line = line, character = (text:find(needle, 1, true) or 1) - 1 + 2 }
end

-- Diagnostics.
local buf = open("tests/demo/salesforce/Records/ApexClass/GreetingService.nacl")
check(vim.bo[buf].filetype == "nacl", "the filetype is nacl")
local got = vim.wait(10000, function()
  return #vim.diagnostic.get(buf) >= 2
end)
local codes = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(codes, d.code)
end
table.sort(codes)
check(got and table.concat(codes, ",") == "E0101,E0401", "diagnostics E0101 and E0401, got " .. table.concat(codes, ","))

-- Definition: from the instance's type label to both fragments of the type.
local params = { textDocument = vim.lsp.util.make_text_document_params(buf), position = position(buf, 12, "salesforce.Account") }
local responses = vim.lsp.buf_request_sync(buf, "textDocument/definition", params, 5000) or {}
local targets = {}
for _, response in pairs(responses) do
  for _, location in ipairs(response.result or {}) do
    table.insert(targets, vim.fs.basename(vim.uri_to_fname(location.uri)))
  end
end
table.sort(targets)
check(table.concat(targets, ",") == "AccountAnnotations.nacl,AccountCustomFields.nacl", "definition finds both fragments, got " .. table.concat(targets, ","))

-- Hover over the same label.
responses = vim.lsp.buf_request_sync(buf, "textDocument/hover", params, 5000) or {}
local hover = ""
for _, response in pairs(responses) do
  hover = response.result and response.result.contents.value or hover
end
check(hover:find("salesforce.Account", 1, true) ~= nil, "hover describes the type")

-- The same workspace with its root written through `..`: the server takes it for the same place,
-- so references still resolve (they were all unresolved when roots were compared as text).
local dotdot = vim.lsp.start({
  name = "nacl_ls_dotdot",
  cmd = { vim.env.NACL_LS or "nacl-ls" },
  root_dir = root .. "/tests/../tests/demo",
}, { bufnr = buf })
local second = dotdot and vim.lsp.get_client_by_id(dotdot)
check(second ~= nil, "a second client starts with the root written through ..")
if second then
  vim.wait(10000, function()
    return second.initialized
  end)
  local answer = second:request_sync("textDocument/definition", params, 5000, buf) or {}
  local found = {}
  for _, location in ipairs(answer.result or {}) do
    table.insert(found, vim.fs.basename(vim.uri_to_fname(location.uri)))
  end
  table.sort(found)
  check(table.concat(found, ",") == "AccountAnnotations.nacl,AccountCustomFields.nacl", "with the root through .., definition finds both fragments, got " .. table.concat(found, ","))
  answer = second:request_sync("textDocument/hover", params, 5000, buf) or {}
  local text = answer.result and answer.result.contents.value or ""
  check(text:find("salesforce.Account", 1, true) ~= nil and text:find("does not exist", 1, true) == nil, "with the root through .., hover describes the type")
  second:stop()
end

-- Copy reference: the element ID of the value under the cursor (line 14, `Region__c`).
vim.api.nvim_win_set_cursor(0, { 14, 4 })
vim.cmd("NaclCopyReference")
check(vim.fn.getreg('"') == "salesforce.Account.instance.Acme.Region__c", "NaclCopyReference copies the element ID, got " .. vim.fn.getreg('"'))

-- Formatting, applied through the client, on an unsaved buffer.
vim.cmd.enew()
local scratch = vim.api.nvim_get_current_buf()
vim.api.nvim_buf_set_name(scratch, root .. "/tests/demo/salesforce/Scratch.nacl")
vim.bo[scratch].filetype = "nacl"
vim.api.nvim_buf_set_lines(scratch, 0, -1, false, { "salto.t a {", "      x =   1", "}" })
vim.wait(10000, function()
  return #vim.lsp.get_clients({ bufnr = scratch, name = "nacl_ls" }) > 0
end)
vim.lsp.buf.format({ bufnr = scratch, timeout_ms = 5000 })
local lines = vim.api.nvim_buf_get_lines(scratch, 0, -1, false)
check(table.concat(lines, "\n") == "salto.t a {\n  x = 1\n}", "formatting fixes the layout, got " .. table.concat(lines, "|"))
vim.bo[scratch].modified = false

-- An HCL buffer: its filetype, diagnostics, outline and formatting.
vim.cmd.enew()
local hcl = vim.api.nvim_get_current_buf()
vim.api.nvim_buf_set_name(hcl, root .. "/tests/demo/Scratch.hcl")
vim.cmd("filetype detect")
check(vim.bo[hcl].filetype == "hcl", "the filetype of Scratch.hcl is hcl, got " .. vim.bo[hcl].filetype)
vim.api.nvim_buf_set_lines(hcl, 0, -1, false, { 'job "web" {', "count=[1 2]", "}" })
vim.wait(10000, function()
  return #vim.lsp.get_clients({ bufnr = hcl, name = "nacl_ls" }) > 0
end)
local hcl_codes = diagnostic_codes(hcl, function(codes)
  return codes ~= ""
end)
check(hcl_codes == "H0208", "an HCL mistake is reported as H0208, got " .. hcl_codes)
vim.api.nvim_buf_set_lines(hcl, 0, -1, false, { 'job "web" {', "count=[1, 2]", "  name =  \"x\"", "}" })
local symbols = vim.lsp.buf_request_sync(hcl, "textDocument/documentSymbol", { textDocument = vim.lsp.util.make_text_document_params(hcl) }, 5000) or {}
local outline = ""
for _, response in pairs(symbols) do
  local first = response.result and response.result[1]
  outline = first and (first.name .. ":" .. #(first.children or {})) or outline
end
check(outline == "web:2", "the outline names the block and its two attributes, got " .. outline)
vim.lsp.buf.format({ bufnr = hcl, timeout_ms = 5000 })
local formatted = table.concat(vim.api.nvim_buf_get_lines(hcl, 0, -1, false), "\n")
check(formatted == 'job "web" {\n  count = [1, 2]\n  name  = "x"\n}', "HCL formatting aligns and indents, got " .. formatted)
vim.bo[hcl].modified = false

-- hcldec: a spec buffer, and an HCL buffer whose first-line directive names it.
vim.cmd.enew()
local spec = vim.api.nvim_get_current_buf()
vim.api.nvim_buf_set_name(spec, root .. "/tests/demo/Scratch.hcldec")
vim.cmd("filetype detect")
check(vim.bo[spec].filetype == "hcl", "the filetype of Scratch.hcldec is hcl, got " .. vim.bo[spec].filetype)
vim.api.nvim_buf_set_lines(spec, 0, -1, false, { "object {", '  attr "name" {', "    type     = string", "    required = true", "  }", "}" })
vim.wait(10000, function()
  return #vim.lsp.get_clients({ bufnr = spec, name = "nacl_ls" }) > 0
end)
vim.cmd.enew()
local described = vim.api.nvim_get_current_buf()
vim.api.nvim_buf_set_name(described, root .. "/tests/demo/Described.hcl")
vim.cmd("filetype detect")
vim.api.nvim_buf_set_lines(described, 0, -1, false, { "# hcldec-spec: Scratch.hcldec", "nmae = 1" })
vim.wait(10000, function()
  return #vim.lsp.get_clients({ bufnr = described, name = "nacl_ls" }) > 0
end)
local spec_codes = diagnostic_codes(described, function(codes)
  return codes == "E0703,E0703"
end)
check(spec_codes == "E0703,E0703", "the spec reports the missing name and the unexpected nmae, got " .. spec_codes)
local lens_responses = vim.lsp.buf_request_sync(described, "textDocument/codeLens", { textDocument = vim.lsp.util.make_text_document_params(described) }, 5000) or {}
local lens_command = ""
for _, response in pairs(lens_responses) do
  local first = response.result and response.result[1]
  lens_command = first and first.command and first.command.command or lens_command
end
check(lens_command == "nacl.showDecodedJson", "a Show decoded JSON lens, got " .. lens_command)
check(vim.lsp.commands["nacl.showDecodedJson"] ~= nil, "the lens's command is defined")
vim.bo[spec].modified = false
vim.bo[described].modified = false

-- ARMLang: the filetype, diagnostics, the dependency lens, and the template command.
vim.cmd.enew()
local arm = vim.api.nvim_get_current_buf()
vim.api.nvim_buf_set_name(arm, root .. "/tests/demo/Scratch.arm")
vim.cmd("filetype detect")
check(vim.bo[arm].filetype == "armlang", "the filetype of Scratch.arm is armlang, got " .. vim.bo[arm].filetype)
vim.api.nvim_buf_set_lines(arm, 0, -1, false, {
  "input string location",
  "resource azrm 'Microsoft.Network/virtualNetworks@2019-11-01' vnet: {",
  "  name: 'vnet'",
  "  location: locaton",
  "}",
})
vim.wait(10000, function()
  return #vim.lsp.get_clients({ bufnr = arm, name = "nacl_ls" }) > 0
end)
local arm_codes = diagnostic_codes(arm, function(codes)
  return codes == "E0802"
end)
check(arm_codes == "E0802", "an undefined name in ARMLang, got " .. arm_codes)
local arm_lenses = vim.lsp.buf_request_sync(arm, "textDocument/codeLens", { textDocument = vim.lsp.util.make_text_document_params(arm) }, 5000) or {}
local arm_titles = {}
for _, response in pairs(arm_lenses) do
  for _, lens in ipairs(response.result or {}) do
    table.insert(arm_titles, lens.command and lens.command.title or "")
  end
end
check(table.concat(arm_titles, "|") == "Show ARM template|depends on nothing", "ARMLang lenses, got " .. table.concat(arm_titles, "|"))
check(vim.lsp.commands["nacl.showArmTemplate"] ~= nil, "the template lens's command is defined")
vim.bo[arm].modified = false

if #failures > 0 then
  print(#failures .. " failed")
  vim.cmd("cquit 1")
end
print("all passed")
vim.cmd("qall!")
