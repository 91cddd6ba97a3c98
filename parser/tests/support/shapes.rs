//! The inputs whose parse cost must grow linearly: ordinary bodies and the
//! adversarial shapes that once did not (deep quoting, `Re:` chains,
//! unclosed fences, JSON-looking lines). Shared by the deterministic
//! test (`tests/linear.rs`, allocations) and the timing example
//! (`examples/linear.rs`, run by `bench/run.sh`).

/// One shape: `make(n)` builds an input of about `n` units; it is
/// measured at `big / 4` and at `big`.
pub(crate) struct Shape {
    pub name: &'static str,
    pub big: usize,
    /// Also measured in strict mode.
    pub strict_too: bool,
    pub make: fn(usize) -> String,
}

fn spec(body: &str) -> String {
    format!("Subject: [ol-1] DONE\n\nBody:\nBead: ol-1\nStatus: DONE\n\n## Summary\n{body}")
}

pub(crate) const SHAPES: &[Shape] = &[
    Shape {
        name: "10 MB body",
        big: 10 << 20,
        strict_too: false,
        make: |bytes| {
            let line = "Implemented the token refresh path and its tests, 45% done.\n";
            spec(&line.repeat(bytes / line.len()))
        },
    },
    Shape {
        name: "100k short lines",
        big: 100_000,
        strict_too: true,
        make: |n| spec(&"ok\n".repeat(n)),
    },
    Shape {
        name: "100k bullets",
        big: 100_000,
        strict_too: true,
        make: |n| {
            let mut b = String::from("## Changes\n- Commit: abc\n- Files:\n");
            for i in 0..n {
                b.push_str(&format!("  - src/file{i}.rs\n"));
            }
            spec(&b)
        },
    },
    Shape {
        name: "## headings",
        big: 8_000,
        strict_too: true,
        make: |n| {
            let mut b = String::new();
            for i in 0..n {
                b.push_str(&format!("## Summary {i}\nText {i}\n### sub\n##{i}\n"));
            }
            spec(&b)
        },
    },
    Shape {
        name: "5 MB line",
        big: 5 << 20,
        strict_too: false,
        make: |n| spec(&"x".repeat(n)),
    },
    Shape {
        name: "5 MB field value",
        big: 5 << 20,
        strict_too: true,
        make: |n| {
            format!(
                "Subject: [ol-1] PROGRESS\n\nBody:\nBead: ol-1\nStep: {}\n",
                "y ".repeat(n / 2)
            )
        },
    },
    Shape {
        name: "deep > nesting",
        big: 1 << 20,
        strict_too: true,
        make: |n| spec(&format!("{} Bead: x\n", ">".repeat(n))),
    },
    Shape {
        name: "many nested quote lines",
        big: 20_000,
        strict_too: true,
        make: |n| {
            let mut b = String::new();
            for i in 0..n {
                b.push_str(&">".repeat(i % 200 + 1));
                b.push_str(" - Files: a.rs\n");
            }
            spec(&b)
        },
    },
    Shape {
        name: "Re: chain",
        big: 100_000,
        strict_too: true,
        make: |n| {
            format!(
                "Subject: {}[{}] DONE\n\nBody:\nBead: x\n",
                "Re: ".repeat(n),
                "[".repeat(n)
            )
        },
    },
    Shape {
        name: "duplicates and fences",
        big: 50_000,
        strict_too: true,
        make: |n| spec(&"Bead: ol-1\n```\nDONE\n".repeat(n)),
    },
    Shape {
        name: "broken JSON lines",
        big: 20_000,
        strict_too: true,
        make: |n| "{\"subject\": \"DONE\", \"body_md\": }\n".repeat(n),
    },
    Shape {
        name: "JSON Lines",
        big: 20_000,
        strict_too: true,
        make: |n| {
            "{\"subject\": \"[ol-1] PROGRESS\", \"body_md\": \"Bead: ol-1\\nStep: s\"}\n".repeat(n)
        },
    },
    Shape {
        name: "header lines",
        big: 50_000,
        strict_too: true,
        make: |n| {
            format!(
                "Subject: DONE\n{}\nBody:\nBead: x\n",
                "To: a, b, c\n".repeat(n)
            )
        },
    },
];
