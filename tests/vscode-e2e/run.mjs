// The VS Code extension in a real VS Code (code-server) in a real browser (Debian's Chromium driven
// by playwright-core), used as a person uses it: keyboard and mouse, assertions on the page's DOM,
// a screenshot of every step.
//
//   node run.mjs --cache DIR --vsix FILE --server BINARY --out DIR
//
// DIR from setup.sh; FILE the packaged extension; BINARY the nacl-ls to configure; screenshots go to
// --out. Exits 1 naming the failed step and its last screenshot.
import { spawn, execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, arg, i, all) => (arg.startsWith("--") ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs), []),
);
for (const required of ["cache", "vsix", "server", "out"]) {
  if (!args[required]) {
    console.error(`missing --${required}`);
    process.exit(2);
  }
}
const require = createRequire(path.join(args.cache, "app", "package.json"));
const { chromium } = require("playwright-core");
const codeServer = path.join(args.cache, "app", "node_modules", ".bin", "code-server");
const here = path.dirname(new URL(import.meta.url).pathname);
const out = path.resolve(args.out);
const server = path.resolve(args.server);
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

// A copy of the fixture workspace that points the extension at the binary, and fresh VS Code folders.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "nacl-ls-vscode-e2e-"));
const workspace = path.join(scratch, "workspace");
fs.cpSync(path.join(here, "workspace"), workspace, { recursive: true });
fs.mkdirSync(path.join(workspace, ".vscode"));
fs.writeFileSync(path.join(workspace, ".vscode", "settings.json"), JSON.stringify({ "nacl.server.path": server }, null, 2));
const userData = path.join(scratch, "user-data");
const extensions = path.join(scratch, "extensions");
fs.mkdirSync(path.join(userData, "User"), { recursive: true });
fs.writeFileSync(
  path.join(userData, "User", "settings.json"),
  JSON.stringify(
    {
      "security.workspace.trust.enabled": false,
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
      "telemetry.telemetryLevel": "off",
      "update.mode": "none",
      "extensions.autoCheckUpdates": false,
      "editor.hover.delay": 100,
      "workbench.enableExperiments": false,
      "workbench.secondarySideBar.defaultVisibility": "hidden",
      "chat.disableAIFeatures": true,
    },
    null,
    2,
  ),
);

let step = "setup";
let passed = 0;
let shot = 0;
let lastShot = "(none yet)";
let page;
let browser;
let vscode;

/** Runs one step: its name is reported if it fails, and a screenshot is taken after it. */
async function run(name, body) {
  step = name;
  console.log(`step: ${name}`);
  await body();
  await screenshot(name);
  passed += 1;
}

async function screenshot(name) {
  if (!page) {
    return;
  }
  shot += 1;
  const file = path.join(out, `${String(shot).padStart(2, "0")}-${name.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}.png`);
  await page.screenshot({ path: file }).catch(() => {});
  lastShot = file;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function waitFor(what, check, timeout = 30000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      if (await check()) {
        return;
      }
    } catch {
      // Not there yet.
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The process IDs of running nacl-ls servers started from `server`. */
function serverProcesses() {
  let listing = "";
  try {
    listing = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  } catch {
    return [];
  }
  return listing
    .split("\n")
    .filter((line) => line.includes(server) && !line.includes("run.mjs"))
    .map((line) => line.trim().split(/\s+/)[0]);
}

/** The visible text of the active editor, line by line (VS Code renders only what is in view). */
async function editorText() {
  return page.locator(".editor-instance .monaco-editor .view-lines").first().evaluate((lines) =>
    [...lines.querySelectorAll(".view-line")]
      .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
      .map((line) => line.textContent.replace(/\u00a0/g, " "))
      .join("\n"),
  );
}

async function quickOpen(name) {
  await page.keyboard.press("Control+P");
  await page.locator(".quick-input-widget input").fill(name);
  await waitFor(`${name} first in quick open`, async () =>
    (await page.locator(".quick-input-list .monaco-list-row").first().textContent())?.includes(name),
  );
  await page.keyboard.press("Enter");
  await waitFor(`${name} to open`, async () =>
    (await page.locator(".tabs-container .tab.active").getAttribute("aria-label"))?.includes(name),
  );
}

async function command(title) {
  await page.keyboard.press("F1");
  await page.locator(".quick-input-widget input").fill(`>${title}`);
  // The first row must be this very command (not one whose title merely starts the same).
  await waitFor(`command ${title}`, async () =>
    (await page.locator(".quick-input-list .monaco-list-row .label-name").first().textContent())?.trim() === title,
  );
  await page.keyboard.press("Enter");
}

/** Waits until the first line of the active editor is drawn in more than one colour class. */
async function waitForHighlighting() {
  await waitFor("highlighting", async () => {
    const classes = await page
      .locator(".editor-instance .view-line")
      .first()
      .evaluate((line) => new Set([...line.querySelectorAll("span span")].map((s) => s.className)).size);
    return classes > 1;
  });
}

/**
 * Runs "Format Document" until the editor's text starts with `expected`: the first request may
 * reach the server before the document does, so it asks again, as a person would (three times).
 */
async function formatDocument(expected) {
  const formatted = async () => (await editorText()).startsWith(expected);
  for (let attempt = 1; ; attempt++) {
    await command("Format Document");
    try {
      await waitFor("the formatted text", formatted, 10000);
      return;
    } catch (error) {
      if (attempt === 3) {
        throw error;
      }
    }
  }
}

async function goTo(line, column) {
  await page.keyboard.press("Control+G");
  const input = page.locator(".quick-input-widget input");
  await input.fill(`:${line}:${column}`);
  await waitFor("go to line", async () => /go to line/i.test((await page.locator(".quick-input-widget").textContent()) ?? ""));
  await page.keyboard.press("Enter");
  await input.waitFor({ state: "hidden" });
}

try {
  await run("install the extension", async () => {
    execFileSync(codeServer, ["--extensions-dir", extensions, "--user-data-dir", userData, "--install-extension", path.resolve(args.vsix)], {
      stdio: "inherit",
    });
  });

  const port = await freePort();
  vscode = spawn(
    codeServer,
    [
      "--bind-addr",
      `127.0.0.1:${port}`,
      "--auth",
      "none",
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--reconnection-grace-time",
      "5",
      "--extensions-dir",
      extensions,
      "--user-data-dir",
      userData,
      workspace,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const log = fs.createWriteStream(path.join(out, "code-server.log"));
  vscode.stdout.pipe(log);
  vscode.stderr.pipe(log);
  await run("start code-server", () =>
    waitFor("code-server to listen", async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 60000),
  );

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  page = await context.newPage();

  await run("open the workbench", async () => {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: 60000 });
    await waitFor("the explorer", async () => (await page.locator(".explorer-folders-view").count()) > 0, 60000);
  });

  await run("open a NaCl file with quick open", () => quickOpen("Acme.nacl"));

  await run("the language mode is NaCl and the text is highlighted", async () => {
    await waitFor("the NaCl language mode", async () =>
      (await page.locator('[id="status.editor.mode"]').textContent())?.includes("NaCl"),
    );
    await waitForHighlighting();
  });

  await run("the extension started the configured server", () =>
    waitFor(`a nacl-ls process from ${server}`, async () => serverProcesses().length > 0, 30000),
  );

  await run("break a reference: a squiggle and a Problems entry", async () => {
    await goTo(3, 46);
    await page.keyboard.type("X");
    await waitFor("a warning squiggle", async () => (await page.locator(".squiggly-warning").count()) > 0);
    await page.keyboard.press("Control+Shift+M");
    await waitFor("W0501 in the Problems panel", async () =>
      (await page.locator(".markers-panel").textContent())?.includes("W0501"),
    );
  });

  await run("undo: the squiggle goes", async () => {
    await page.locator(".editor-instance .view-lines").first().click();
    await page.keyboard.press("Control+Z");
    await waitFor("no squiggle", async () => (await page.locator(".squiggly-warning").count()) === 0);
  });

  await run("hover a reference", async () => {
    await goTo(3, 42);
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    await waitFor("the hover", async () =>
      (await page.locator(".monaco-hover").first().textContent())?.includes("salesforce.Account.instance.Globex"),
    );
    await screenshot("the hover");
    await page.keyboard.press("Escape");
  });

  await run("F12 goes to the definition", async () => {
    await goTo(3, 42);
    await page.keyboard.press("F12");
    await waitFor("Globex.nacl", async () =>
      (await page.locator(".tabs-container .tab.active").getAttribute("aria-label"))?.includes("Globex.nacl"),
    );
  });

  await run("Format Document fixes a messy file", async () => {
    await quickOpen("Messy.nacl");
    await formatDocument('salesforce.Account Messy {\n  Name = "Messy"\n}');
  });

  await run("completion after a dot in a reference", async () => {
    await quickOpen("Acme.nacl");
    await goTo(3, 100);
    await page.keyboard.press("Enter");
    await page.keyboard.type("Other = salesforce.Account.instance.");
    // Typing the dot asks for suggestions; a request overtaken by the next keystroke's edit is
    // answered empty, so ask again with Ctrl+Space, as a person would (three times at most).
    const globex = async () =>
      (await page.locator(".suggest-widget .monaco-list-row").allTextContents()).some((t) => t.includes("Globex"));
    for (let attempt = 1; ; attempt++) {
      try {
        await waitFor("Globex among the suggestions", globex, 10000);
        break;
      } catch (error) {
        if (attempt === 3) {
          throw error;
        }
        await page.keyboard.press("Escape");
        await page.keyboard.press("Control+Space");
      }
    }
    await screenshot("the suggestions");
    await page.keyboard.press("Escape");
  });

  await run("Copy NaCl Reference from the context menu", async () => {
    // Take the completion's line out again, then copy the reference of `Name`.
    await page.keyboard.press("Control+Shift+K");
    await waitFor("the line gone", async () => !(await editorText()).includes("Other"));
    await goTo(2, 4);
    const cursor = page.locator(".editor-instance .cursor").first();
    const box = await cursor.boundingBox();
    await page.mouse.click(box.x + 1, box.y + box.height / 2, { button: "right" });
    const item = page.locator(".monaco-menu .action-item", { hasText: "Copy NaCl Reference" });
    await item.first().waitFor({ timeout: 10000 });
    // Pointing at the item selects it; Enter runs it (a click can land while the menu still fades in).
    await item.first().hover();
    await waitFor("the item selected", async () => (await item.first().getAttribute("class"))?.includes("focused"));
    await screenshot("the context menu");
    await page.keyboard.press("Enter");
    await item.first().waitFor({ state: "hidden", timeout: 10000 });
    await waitFor("the copied ID in the status bar", async () =>
      (await page.locator(".statusbar").textContent())?.includes("Copied salesforce.Account.instance.Acme.Name"),
    );
  });

  await run("an HCL file: its language, highlighting and a squiggle for its mistake", async () => {
    await quickOpen("deploy.hcl");
    await waitFor("the HCL language mode", async () =>
      (await page.locator('[id="status.editor.mode"]').textContent())?.includes("HCL"),
    );
    await waitForHighlighting();
    await waitFor("an error squiggle", async () => (await page.locator(".squiggly-error").count()) > 0);
    await page.keyboard.press("Control+Shift+M");
    await waitFor("H0208 in the Problems panel", async () =>
      (await page.locator(".markers-panel").textContent())?.includes("H0208"),
    );
  });

  await run("the HCL outline lists the block and its attributes", async () => {
    await page.locator(".editor-instance .view-lines").first().click();
    await page.keyboard.press("Control+Shift+O");
    await waitFor("port and tags in Go to Symbol", async () => {
      const rows = await page.locator(".quick-input-list .monaco-list-row").allTextContents();
      return rows.some((t) => t.includes("port")) && rows.some((t) => t.includes("tags"));
    });
    await screenshot("the HCL symbols");
    await page.keyboard.press("Escape");
  });

  await run("fix the HCL mistake and Format Document lays it out as hclfmt does", async () => {
    await goTo(3, 12);
    await page.keyboard.type(",");
    await waitFor("no error squiggle", async () => (await page.locator(".squiggly-error").count()) === 0);
    await formatDocument('service "web" {\n  port = 8080\n  tags = [1, 2]\n}');
  });

  await run("an hcldec spec checks an HCL file, and Show Decoded JSON shows its value", async () => {
    await quickOpen("app.hcl");
    await waitFor("an error squiggle under prot", async () => (await page.locator(".squiggly-error").count()) > 0);
    await waitFor("the Show decoded JSON lens", async () =>
      (await page.locator(".codelens-decoration").allTextContents()).some((t) => t.includes("Show decoded JSON")),
    );
    await goTo(3, 1);
    await page.keyboard.press("Shift+End");
    await page.keyboard.type("port = 80");
    await waitFor("no error squiggle", async () => (await page.locator(".squiggly-error").count()) === 0);
    await command("NaCl: Show Decoded JSON");
    await waitFor("the decoded JSON beside", async () =>
      (await page.locator(".view-lines").allTextContents()).some((t) => t.replace(/\u00a0/g, " ").includes('"port": 80')),
    );
  });

  await run("an ARMLang file: its language, a squiggle, the dependency lens, and Show ARM Template", async () => {
    // The decoded JSON opened a second editor group: one group again, so one tab is active.
    await command("View: Join All Editor Groups");
    await quickOpen("network.arm");
    await waitFor("the ARMLang language mode", async () =>
      (await page.locator('[id="status.editor.mode"]').textContent())?.includes("ARMLang"),
    );
    await waitFor("an error squiggle under locaton", async () => (await page.locator(".squiggly-error").count()) > 0);
    await waitFor("the dependency lens", async () =>
      (await page.locator(".codelens-decoration").allTextContents()).some((t) => t.includes("depends on vnet")),
    );
    await goTo(4, 18);
    await page.keyboard.type("i");
    await waitFor("no error squiggle", async () => (await page.locator(".squiggly-error").count()) === 0);
    await command("NaCl: Show ARM Template");
    await waitFor("the template beside", async () =>
      (await page.locator(".view-lines").allTextContents()).some((t) => t.replace(/\u00a0/g, " ").includes('"dependsOn"')),
    );
    await screenshot("the ARM template");
  });

  await run("the server exits when the window closes", async () => {
    await browser.close();
    browser = undefined;
    page = undefined;
    await waitFor("no nacl-ls process", async () => serverProcesses().length === 0, 60000);
  });

  console.log(`all steps passed; screenshots in ${out}`);
  console.log(`vscode-e2e: ${passed} passed, 0 failed`);
} catch (error) {
  await screenshot(`failed ${step}`);
  console.error(`FAILED at step "${step}": ${error.message}\nlast screenshot: ${lastShot}`);
  console.log(`vscode-e2e: ${passed} passed, 1 failed`);
  process.exitCode = 1;
} finally {
  await browser?.close().catch(() => {});
  vscode?.kill();
  fs.rmSync(scratch, { recursive: true, force: true });
}
