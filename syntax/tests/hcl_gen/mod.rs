//! A generator of HCL-like files for property and differential tests: mostly valid HCL with
//! every expression form, odd spacing, comments and line breaks in many places, and now and then
//! a mistake, so that both the parser's verdicts and the formatter's layout get exercised.

/// A seeded generator (xorshift64*), so a failing case can be reproduced from its seed.
pub struct Gen {
    state: u64,
}

const NAMES: &[&str] = &["a", "b", "name", "long_name", "x1", "dash-ed", "for", "in", "if", "true", "null", "é"];

impl Gen {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Gen {
        Gen { state: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1 }
    }

    fn next(&mut self) -> u64 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        self.state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn ws(&mut self) -> &'static str {
        ["", " ", " ", "  ", "\t", "    "][self.below(6)]
    }

    fn name(&mut self) -> &'static str {
        self.pick(NAMES)
    }

    /// A whole file.
    pub fn file(&mut self) -> String {
        let mut out = String::new();
        let items = 1 + self.below(8);
        for _ in 0..items {
            self.item(&mut out, 0);
        }
        if self.chance(10) {
            out.pop();
        }
        if self.chance(5) {
            out.push_str("  ");
        }
        out
    }

    fn item(&mut self, out: &mut String, depth: usize) {
        out.push_str(self.ws());
        match self.below(10) {
            0 => out.push('\n'),
            1 => {
                let comment = self.pick(&["# note", "// note", "/* note */", "#"]);
                out.push_str(comment);
                out.push('\n');
            }
            2 | 3 if depth < 3 => self.block(out, depth),
            _ => {
                out.push_str(self.name());
                out.push_str(self.ws());
                out.push('=');
                out.push_str(self.ws());
                self.expr(out, depth, true);
                out.push_str(self.ws());
                if self.chance(15) {
                    out.push_str(self.pick(&["# trailing", "// trailing"]));
                }
                out.push('\n');
            }
        }
    }

    fn block(&mut self, out: &mut String, depth: usize) {
        out.push_str(self.pick(&["resource", "block", "variable", "dash-ed"]));
        for _ in 0..self.below(3) {
            out.push(' ');
            if self.chance(50) {
                out.push_str(self.pick(&["\"label\"", "\"with space\"", "\"\""]));
            } else {
                out.push_str(self.name());
            }
        }
        out.push_str(self.ws());
        out.push('{');
        match self.below(4) {
            0 => out.push_str("}\n"),
            1 => {
                out.push_str(self.ws());
                out.push_str(self.name());
                out.push_str(" = ");
                self.expr(out, depth + 1, false);
                out.push_str(self.ws());
                out.push_str("}\n");
            }
            _ => {
                out.push('\n');
                for _ in 0..self.below(5) {
                    self.item(out, depth + 1);
                }
                out.push_str(self.ws());
                out.push_str("}\n");
            }
        }
    }

    /// An expression; `lines` allows line breaks inside brackets.
    fn expr(&mut self, out: &mut String, depth: usize, lines: bool) {
        if depth > 4 {
            out.push_str(self.pick(&["1", "x", "\"s\""]));
            return;
        }
        match self.below(16) {
            0 => out.push_str(self.pick(&["1", "0.5", "1e3", "12.5E-2", "007"])),
            1 => out.push_str(self.pick(&["true", "false", "null"])),
            2 => self.template(out, depth),
            3 => {
                out.push_str(self.name());
                for _ in 0..self.below(4) {
                    let step = self.pick(&[".b", "[0]", "[\"k\"]", ".*", "[*]", ".0", ".*.id", " [ 1 ]"]);
                    out.push_str(step);
                }
            }
            4 => {
                out.push_str(self.pick(&["f", "max", "upper"]));
                out.push_str(self.pick(&["(", " ("]));
                let n = self.below(4);
                for i in 0..n {
                    if lines && self.chance(30) {
                        out.push('\n');
                    }
                    out.push_str(self.ws());
                    self.expr(out, depth + 1, lines);
                    if i + 1 < n {
                        out.push(',');
                    } else if self.chance(20) {
                        out.push_str("...");
                    }
                }
                out.push_str(self.ws());
                out.push(')');
            }
            5 => self.tuple(out, depth, lines),
            6 => self.object(out, depth, lines),
            7 | 8 => {
                self.expr(out, depth + 1, lines);
                out.push_str(self.ws());
                out.push_str(self.pick(&["+", "-", "*", "/", "%", "==", "!=", "<", ">=", "&&", "||"]));
                out.push_str(self.ws());
                self.expr(out, depth + 1, lines);
            }
            9 => {
                out.push_str(self.pick(&["-", "!", "- "]));
                self.expr(out, depth + 1, lines);
            }
            10 => {
                self.expr(out, depth + 1, lines);
                out.push_str(self.pick(&[" ? ", "?", " ?"]));
                self.expr(out, depth + 1, lines);
                out.push_str(self.pick(&[" : ", ":", " :"]));
                self.expr(out, depth + 1, lines);
            }
            11 => {
                out.push('(');
                self.expr(out, depth + 1, lines);
                out.push(')');
            }
            12 => {
                let object = self.chance(50);
                out.push_str(if object { "{" } else { "[" });
                out.push_str(self.pick(&["for v in ", "for k, v in ", "for k,v in "]));
                self.expr(out, depth + 1, false);
                out.push_str(self.pick(&[": ", " : ", ":"]));
                self.expr(out, depth + 1, false);
                if object {
                    out.push_str(" => ");
                    self.expr(out, depth + 1, false);
                    if self.chance(30) {
                        out.push_str("...");
                    }
                }
                if self.chance(30) {
                    out.push_str(" if ");
                    self.expr(out, depth + 1, false);
                }
                out.push_str(if object { "}" } else { "]" });
            }
            13 if lines => {
                let indented = self.chance(50);
                out.push_str(if indented { "<<-EOT\n" } else { "<<EOT\n" });
                for _ in 0..self.below(3) {
                    out.push_str(self.pick(&["  text", "    ${x}", "plain ${ a + 1 } more", "%{ if c }y%{ endif }"]));
                    out.push('\n');
                }
                out.push_str(if indented { "  EOT" } else { "EOT" });
            }
            14 if self.chance(20) => {
                // A mistake now and then.
                out.push_str(self.pick(&["[1 2]", "{ a 1 }", "f(", "\"open", "a.", "1 +", "%", "{ a = 1 b = 2 }"]));
            }
            _ => out.push_str(self.name()),
        }
    }

    fn template(&mut self, out: &mut String, depth: usize) {
        out.push('"');
        for _ in 0..self.below(4) {
            match self.below(5) {
                0 => out.push_str("text "),
                1 => out.push_str("\\n\\\"\\u00e9"),
                2 => {
                    out.push_str(self.pick(&["${", "${ ", "${~"]));
                    self.expr(out, depth + 1, false);
                    out.push_str(self.pick(&["}", " }", "~}"]));
                }
                3 => {
                    out.push_str("%{ if ");
                    self.expr(out, depth + 1, false);
                    out.push_str(" }a%{ else }b%{ endif }");
                }
                _ => out.push_str("$${lit}"),
            }
        }
        out.push('"');
    }

    fn tuple(&mut self, out: &mut String, depth: usize, lines: bool) {
        out.push('[');
        let multi = lines && self.chance(40);
        let n = self.below(4);
        for i in 0..n {
            if multi {
                out.push('\n');
            }
            out.push_str(self.ws());
            self.expr(out, depth + 1, lines);
            if i + 1 < n || self.chance(30) {
                out.push(',');
            }
        }
        if multi {
            out.push('\n');
        }
        out.push(']');
    }

    fn object(&mut self, out: &mut String, depth: usize, lines: bool) {
        out.push('{');
        let multi = lines && self.chance(60);
        let n = self.below(4);
        for i in 0..n {
            if multi {
                out.push('\n');
            }
            out.push_str(self.ws());
            out.push_str(self.pick(&["a", "\"b\"", "(k)", "long_key", "c"]));
            out.push_str(self.ws());
            out.push_str(self.pick(&["=", ":"]));
            out.push_str(self.ws());
            self.expr(out, depth + 1, lines);
            if !multi && i + 1 < n {
                out.push(',');
            } else if multi && self.chance(20) {
                out.push_str(" # c");
            }
        }
        if multi {
            out.push('\n');
        }
        out.push('}');
    }
}
