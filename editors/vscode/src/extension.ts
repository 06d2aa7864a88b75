// Starts nacl-ls for NaCl and HCL files and wires the extension's commands to the server's.
import * as fs from "fs";
import * as path from "path";
import { ExtensionContext, Uri, ViewColumn, commands, env, window, workspace } from "vscode";
import { ExecuteCommandRequest, LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";

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

/** "Copy NaCl Reference": asks the server for the element ID at the cursor and copies it. */
async function copyReference(): Promise<void> {
  const editor = window.activeTextEditor;
  if (!client || !editor) {
    return;
  }
  const position = client.code2ProtocolConverter.asTextDocumentPositionParams(editor.document, editor.selection.active);
  const id = await client.sendRequest(ExecuteCommandRequest.type, { command: "nacl.copyReference", arguments: [position] });
  if (typeof id === "string") {
    await env.clipboard.writeText(id);
    window.setStatusBarMessage(`Copied ${id}`, 3000);
  } else {
    window.showInformationMessage("No NaCl element here.");
  }
}

/**
 * "Go To Service": asks the server for the service URL of the field or element at the cursor;
 * the server opens it (`window/showDocument`) or says why there is none.
 */
async function goToService(): Promise<void> {
  const editor = window.activeTextEditor;
  if (!client || !editor) {
    return;
  }
  const position = client.code2ProtocolConverter.asTextDocumentPositionParams(editor.document, editor.selection.active);
  await client.sendRequest(ExecuteCommandRequest.type, { command: "nacl.goToService", arguments: [position] });
}

/**
 * The command of the server's reference-count lenses: shows the references it counted in VS Code's
 * references peek view. Its arguments are the document URI, the position and the LSP locations.
 */
async function showReferences(uri: string, position: unknown, locations: unknown[]): Promise<void> {
  if (!client) {
    return;
  }
  const converter = client.protocol2CodeConverter;
  await commands.executeCommand(
    "editor.action.showReferences",
    Uri.parse(uri),
    converter.asPosition(position as Parameters<typeof converter.asPosition>[0]),
    locations.map((l) => converter.asLocation(l as Parameters<typeof converter.asLocation>[0])),
  );
}

/**
 * "Show Decoded JSON" (the code lens on HCL files an hcldec spec describes, and the palette): the
 * JSON the document decodes to, from the server's `nacl.hcldec.decodedJson`, in an editor beside.
 */
async function showDecodedJson(argument?: { uri?: string }): Promise<void> {
  await showServerJson("nacl.hcldec.decodedJson", argument);
}

/**
 * "Show ARM Template" (the code lens on ARMLang files, and the palette): the ARM template the
 * document compiles to, from the server's `nacl.arm.template`, in an editor beside.
 */
async function showArmTemplate(argument?: { uri?: string }): Promise<void> {
  await showServerJson("nacl.arm.template", argument);
}

/** Runs a server command that answers a document's JSON, and opens the JSON in an editor beside. */
async function showServerJson(command: string, argument?: { uri?: string }): Promise<void> {
  const uri = argument?.uri ?? window.activeTextEditor?.document.uri.toString();
  if (!client || !uri) {
    return;
  }
  // The server tells the user why when there is none (no spec, a file with errors).
  const json = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [{ uri }] });
  if (typeof json === "string") {
    const document = await workspace.openTextDocument({ language: "json", content: json });
    await window.showTextDocument(document, { viewColumn: ViewColumn.Beside, preview: true });
  }
}

/**
 * The documents nacl-ls serves: NaCl, HCL and ARMLang, the files matching `nacl.hcl.files` (which the server
 * reads as HCL), and Terraform files (`*.tf`, `*.tfvars`, whatever language VS Code gives them) only
 * when `nacl.hcl.terraformFiles` is on, so that a Terraform extension keeps them by default.
 */
function documentSelector(): LanguageClientOptions["documentSelector"] {
  const selector: { scheme: string; language?: string; pattern?: string }[] = [];
  for (const language of ["nacl", "hcl", "armlang"]) {
    selector.push({ scheme: "file", language }, { scheme: "untitled", language });
  }
  if (workspace.getConfiguration("nacl").get<boolean>("hcl.terraformFiles")) {
    selector.push({ scheme: "file", pattern: "**/*.{tf,tfvars}" });
  }
  for (const pattern of workspace.getConfiguration("nacl").get<string[]>("hcl.files") ?? []) {
    selector.push({ scheme: "file", pattern });
  }
  return selector;
}

export async function activate(context: ExtensionContext): Promise<void> {
  const command = serverCommand(context);
  const serverOptions: ServerOptions = { run: { command, args: ["serve"] }, debug: { command, args: ["serve"] } };
  const clientOptions: LanguageClientOptions = { documentSelector: documentSelector() };
  client = new LanguageClient("nacl", "nacl-ls", serverOptions, clientOptions);
  context.subscriptions.push(commands.registerCommand("nacl.copyNaclReference", copyReference));
  context.subscriptions.push(commands.registerCommand("nacl.goToServiceAtCursor", goToService));
  context.subscriptions.push(commands.registerCommand("nacl.showReferences", showReferences));
  context.subscriptions.push(commands.registerCommand("nacl.showDecodedJson", showDecodedJson));
  context.subscriptions.push(commands.registerCommand("nacl.showArmTemplate", showArmTemplate));
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
