// Starts nacl-ls for NaCl files.
import * as fs from "fs";
import * as path from "path";
import { ExtensionContext, workspace } from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";

let client: LanguageClient | undefined;

/** The server binary: the configured path, else one bundled in `server/`, else `nacl-ls` on PATH. */
function serverCommand(context: ExtensionContext): string {
  const configured = workspace.getConfiguration("nacl").get<string>("server.path");
  if (configured) {
    return configured;
  }
  const bundled = context.asAbsolutePath(path.join("server", process.platform === "win32" ? "nacl-ls.exe" : "nacl-ls"));
  return fs.existsSync(bundled) ? bundled : "nacl-ls";
}

export async function activate(context: ExtensionContext): Promise<void> {
  const command = serverCommand(context);
  const serverOptions: ServerOptions = { run: { command, args: ["serve"] }, debug: { command, args: ["serve"] } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "nacl" }, { scheme: "untitled", language: "nacl" }],
  };
  client = new LanguageClient("nacl", "nacl-ls", serverOptions, clientOptions);
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
