//! `amail parse`: files, directories (recursive) or stdin to JSON, JSON
//! Lines or text.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use amail_parser::{parse_bytes, OwnedMessage, ParseOptions, Severity};
use clap::{Args, ValueEnum};
use serde::Serialize;

use super::{CliError, CliResult};
use crate::source::parallel;
use crate::source::walk::mail_files;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One JSON array of every message.
    Json,
    /// One JSON object per line.
    Jsonl,
    /// A readable summary with diagnostics.
    Text,
    /// AOF/1 envelopes (JSON Lines), as `amail route` would route them.
    /// Messages that map to no event (unknown types, plain replies) are left out.
    Aof,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  amail parse mail/                      every mail file under mail/\n  amail parse --strict msg.md            fail at the first malformed message\n  cat inbox.json | amail parse --format json\n  amail parse archive/ | jq 'select(.type == \"HELP_REQUEST\")'\n  amail parse --format aof archive/      the AOF/1 events the router would receive"
)]
pub struct ParseArgs {
    /// Mail files or directories (recursive); none or `-` reads stdin.
    pub paths: Vec<PathBuf>,
    /// Fail on the first malformed message (exit 1, with file:line:col).
    #[arg(long)]
    pub strict: bool,
    /// Output format [default: text on a terminal, jsonl when piped]; `aof` prints AOF/1 envelopes.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
}

/// One message as `amail parse` prints it: where it came from, then the
/// parser's JSON.
#[derive(Serialize)]
pub struct Located<'m> {
    pub source: String,
    #[serde(flatten)]
    pub message: &'m OwnedMessage,
}

/// A document to parse: a file, or stdin.
enum Input {
    File(PathBuf),
    Stdin,
}

impl Input {
    fn name(&self) -> String {
        match self {
            Input::File(p) => p.display().to_string(),
            Input::Stdin => "<stdin>".to_string(),
        }
    }

    fn read(&self) -> io::Result<Vec<u8>> {
        match self {
            Input::File(p) => crate::config::read_file_limited(p),
            Input::Stdin => crate::config::read_limited(io::stdin().lock()),
        }
    }
}

fn inputs(paths: &[PathBuf]) -> Result<Vec<Input>, CliError> {
    if paths.is_empty() {
        return Ok(vec![Input::Stdin]);
    }
    let mut out = Vec::new();
    for p in paths {
        if p.as_os_str() == "-" {
            out.push(Input::Stdin);
        } else if p.is_dir() {
            let files = mail_files(p).map_err(|e| {
                CliError::bad_input(format!("{}: cannot read directory: {e}", p.display()))
            })?;
            out.extend(files.into_iter().map(Input::File));
        } else if p.exists() {
            out.push(Input::File(p.clone()));
        } else {
            return Err(CliError::bad_input(format!(
                "{}: no such file or directory",
                p.display()
            )));
        }
    }
    Ok(out)
}

pub fn run(args: ParseArgs) -> CliResult {
    let format = args.format.unwrap_or(if io::stdout().is_terminal() {
        Format::Text
    } else {
        Format::Jsonl
    });
    let opts = ParseOptions {
        strict: args.strict,
    };
    let inputs = inputs(&args.paths)?;
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut unreadable = 0usize;
    let mut first = true;
    if format == Format::Json {
        write_out(&mut out, b"[")?;
    }
    // Files are read, parsed and rendered on every core, a batch at a time
    // (bounded memory), then written in input order: the output is the
    // same as a sequential run.
    for batch in inputs.chunks(BATCH) {
        let rendered = parallel::map_min(batch, 16, |input| render_input(input, format, &opts));
        for (input, result) in batch.iter().zip(rendered) {
            match result {
                Rendered::Unreadable(e) => {
                    out.flush().ok();
                    eprintln!("amail: {}: cannot read: {e}", input.name());
                    unreadable += 1;
                }
                Rendered::Invalid(e) => {
                    out.flush().ok();
                    return Err(CliError::bad_input(e.report(&input.name())));
                }
                Rendered::Refused(e) => {
                    out.flush().ok();
                    return Err(e);
                }
                Rendered::Ok { bytes, messages } => {
                    if messages == 0 {
                        continue;
                    }
                    // JSON items are rendered each with a leading `,`: the
                    // very first one drops it.
                    let bytes = if format == Format::Json && first {
                        &bytes[1..]
                    } else {
                        &bytes[..]
                    };
                    write_out(&mut out, bytes)?;
                    first = false;
                }
            }
        }
    }
    if format == Format::Json {
        write_out(&mut out, b"\n]\n")?;
    }
    out.flush().map_err(write_error)?;
    if unreadable > 0 {
        return Err(CliError::bad_input(format!(
            "{unreadable} file(s) could not be read (listed above)"
        )));
    }
    Ok(ExitCode::SUCCESS)
}

/// Inputs handled in parallel before their output is written.
const BATCH: usize = 4096;

/// One input's output, rendered off the main thread.
enum Rendered {
    Ok {
        bytes: Vec<u8>,
        messages: usize,
    },
    Unreadable(io::Error),
    Invalid(amail_parser::ParseError),
    /// A handoff or A2A file refused in strict mode.
    Refused(CliError),
}

fn render_input(input: &Input, format: Format, opts: &ParseOptions) -> Rendered {
    let bytes = match input.read() {
        Ok(b) => b,
        Err(e) => return Rendered::Unreadable(e),
    };
    let name = input.name();
    // Handoff v0.1 and A2A files are detected by content and printed as
    // their own objects; JSON items carry a leading `,` like mail items.
    let mut buf = Vec::new();
    let mut first = false;
    match crate::protocols::cli::print(
        &mut buf,
        &name,
        &bytes,
        &format!("{format:?}"),
        &mut first,
        opts.strict,
    ) {
        Ok(true) => {
            return Rendered::Ok {
                messages: usize::from(!buf.is_empty()),
                bytes: buf,
            }
        }
        Ok(false) => {}
        Err(e) => return Rendered::Refused(e),
    }
    let msgs = match parse_bytes(&bytes, opts) {
        Ok(m) => m,
        Err(e) => return Rendered::Invalid(e),
    };
    buf.reserve(bytes.len() + 512);
    for m in &msgs {
        let located = Located {
            source: format!("{name}:{}", m.line),
            message: m,
        };
        // Writing into a Vec cannot fail; serde errors on these types cannot happen.
        match format {
            Format::Json => {
                buf.extend_from_slice(b",\n");
                serde_json::to_writer_pretty(&mut buf, &located).ok();
            }
            Format::Jsonl => {
                serde_json::to_writer(&mut buf, &located).ok();
                buf.push(b'\n');
            }
            Format::Text => {
                write_text(&mut buf, &located).ok();
            }
            Format::Aof => {
                if let Some(env) = crate::bridge::to_envelope_standalone(m) {
                    buf.extend_from_slice(env.to_json_line().as_bytes());
                    buf.push(b'\n');
                }
            }
        }
    }
    Rendered::Ok {
        messages: msgs.len(),
        bytes: buf,
    }
}

fn write_error(e: io::Error) -> CliError {
    super::exit_on_write_error(e)
}

fn write_out(out: &mut impl Write, bytes: &[u8]) -> Result<(), CliError> {
    out.write_all(bytes).map_err(write_error)
}

fn write_text(out: &mut impl Write, m: &Located<'_>) -> Result<(), CliError> {
    let msg = m.message;
    let bead = msg.bead().unwrap_or("-");
    let reply = if msg.is_reply { " (reply)" } else { "" };
    let from = msg.from.as_deref().unwrap_or("?");
    let to = if msg.to.is_empty() {
        "?".to_string()
    } else {
        msg.to.join(", ")
    };
    let mut s = format!(
        "{}  {}{}  bead {}  {} -> {}  {}\n",
        sanitize(&m.source),
        msg.kind,
        reply,
        sanitize(bead),
        sanitize(from),
        sanitize(&to),
        sanitize(&msg.subject)
    );
    for d in &msg.diagnostics {
        let sev = match d.severity {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        s.push_str(&format!(
            "    {sev} {}:{} [{}] {}\n",
            d.line,
            d.column,
            d.code,
            sanitize(&d.message)
        ));
    }
    write_out(out, s.as_bytes())
}

/// Agent text must not drive the terminal: control characters are shown
/// as `?`, bidi controls are dropped.
fn sanitize(s: &str) -> String {
    s.chars()
        .filter(|&c| !crate::tui::sanitize::is_bidi_control(c))
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}
