//! `amail parse`: files, directories (recursive) or stdin to JSON, JSON
//! Lines or text.

use std::borrow::Cow;
use std::io::{self, IsTerminal, Write};
use std::ops::{ControlFlow, Range};
use std::path::PathBuf;
use std::process::ExitCode;

use amail_parser::{parse, parse_bytes, Message, ParseOptions, Severity};
use clap::{Args, ValueEnum};
use serde::Serialize;

use super::{CliError, CliResult};
use amail_core::formats::in_handoff_dir;
use amail_core::fsio::FileReader;
use amail_core::safe_text::clean_line;
use amail_core::source::parallel;
use amail_core::source::walk;
use amail_core::words::counted;

mod json;
mod protocol;

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
    /// Mail files or directories (recursive, with a directory's
    /// `.handoffs/` as `amail route` reads it); none or `-` reads stdin
    /// (on a terminal, until Ctrl-D). Binary files are skipped with a
    /// warning; empty input is no message.
    pub paths: Vec<PathBuf>,
    /// Fail on the first malformed message (exit 1, with file:line:col).
    #[arg(long)]
    pub strict: bool,
    /// Output format [default: text on a terminal, jsonl when piped]; `aof` prints AOF/1 envelopes.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    #[command(flatten)]
    pub limit: super::ReadLimit,
}

/// One message as `amail parse` prints it: where it came from
/// (`file:line`), then the parser's JSON.
#[derive(Serialize)]
pub struct Located<'m, 'a> {
    pub source: &'m str,
    #[serde(flatten)]
    pub message: &'m Message<'a>,
}

/// A document to parse: a file, or stdin.
enum Input {
    File(PathBuf),
    Stdin,
}

impl Input {
    /// The name messages and errors give it: the path as it is (nearly
    /// always UTF-8, not copied), else with U+FFFD for what is not.
    fn name(&self) -> Cow<'_, str> {
        match self {
            // `to_str` first: `to_string_lossy` walks even a UTF-8 path
            // in chunks (~500 instructions a file over 10,000 files).
            Input::File(p) => p
                .to_str()
                .map_or_else(|| p.to_string_lossy(), Cow::Borrowed),
            Input::Stdin => Cow::Borrowed("<stdin>"),
        }
    }
}

/// What the walk of the directories named could not look into: folders
/// it could not list, and entries it could not read as files (links that
/// lead nowhere). Each is said on stderr as it is found, and the run goes
/// on without it and fails at the end, as for a file it cannot read.
#[derive(Default)]
struct Unlisted {
    folders: usize,
    files: usize,
}

/// What the paths named on the command line hold.
struct Inputs {
    list: Vec<Input>,
    /// Where the named mailboxes' handoff files lie in `list`
    /// (`walk::mailbox` lists each mailbox's first).
    handoffs: Vec<Range<usize>>,
    unlisted: Unlisted,
}

/// The inputs `paths` name.
fn inputs(paths: &[PathBuf]) -> Result<Inputs, CliError> {
    if paths.is_empty() {
        return Ok(Inputs {
            list: vec![Input::Stdin],
            handoffs: Vec::new(),
            unlisted: Unlisted::default(),
        });
    }
    let mut out = Vec::new();
    let mut handoffs = Vec::new();
    let mut unlisted = Unlisted::default();
    for p in paths {
        if super::names_stdin(p) {
            out.push(Input::Stdin);
            continue;
        }
        let meta = std::fs::metadata(p).map_err(|e| {
            // What is wrong with the path itself: a link that leads
            // nowhere says so, naming its target (`fsio::reason_at`).
            CliError::bad_input(format!(
                "{}: {}",
                p.display(),
                amail_core::fsio::reason_at(p, &e)
            ))
        })?;
        // One `stat` (`is_dir` then `exists` made two).
        if meta.is_dir() {
            // The mailbox's handoff files first, as `amail route` and the
            // inbox read them, then its mail.
            let found = walk::mailbox(p).map_err(|e| {
                CliError::bad_input(format!("{}: cannot read directory: {e}", p.display()))
            })?;
            for problem in &found.problems {
                crate::errln!(
                    "amail: {}: {}",
                    clean_line(&problem.path.to_string_lossy()),
                    clean_line(&problem.to_string())
                );
                if problem.is_folder() {
                    unlisted.folders += 1;
                } else {
                    unlisted.files += 1;
                }
            }
            if found.handoffs > 0 {
                handoffs.push(out.len()..out.len() + found.handoffs);
            }
            let files = found.files.into_iter().map(Input::File);
            if out.is_empty() {
                // In place: a path and an input are the same size, so
                // the walk's list becomes the input list without a
                // second one (10,000 files: 240 KB of fresh pages,
                // about 60 page faults, and the copy).
                out = files.collect();
            } else {
                out.extend(files);
            }
        } else {
            out.push(Input::File(p.clone()));
        }
    }
    Ok(Inputs {
        list: out,
        handoffs,
        unlisted,
    })
}

/// What every input is rendered with.
struct Settings {
    format: Format,
    /// The format as `protocol::print` spells it.
    format_name: String,
    opts: ParseOptions,
    /// Inputs larger than this are reported unreadable.
    max_bytes: u64,
    /// Where the named mailboxes' handoff files are among the inputs:
    /// read as handoffs even where their folder is not named `.handoffs`
    /// (`HANDOFF_DIR`). The walk knew which they were; the ranges keep
    /// that, so no path is looked up again.
    handoffs: Vec<Range<usize>>,
}

impl Settings {
    /// Whether the input at `index`, named `name`, is a handoff file: one
    /// of a named mailbox's, or one under a `.handoffs` folder however it
    /// was named (`folders` answers that, folder by folder).
    fn is_handoff(&self, index: usize, name: &str, folders: &mut Folders) -> bool {
        self.handoffs.iter().any(|r| r.contains(&index)) || folders.in_handoff_dir(name)
    }
}

/// Inputs rendered together by one worker before the main thread writes
/// them: big enough that handing a chunk over costs nothing next to it,
/// small enough to share the work out evenly.
const CHUNK: usize = 32;

pub fn run(args: ParseArgs, max_bytes: u64) -> CliResult {
    super::server::refuse_urls(&args.paths, "parse")?;
    let format = args.format.unwrap_or(if io::stdout().is_terminal() {
        Format::Text
    } else {
        Format::Jsonl
    });
    let Inputs {
        list: inputs,
        handoffs,
        unlisted,
    } = inputs(&args.paths)?;
    let settings = Settings {
        format,
        format_name: format!("{format:?}"),
        opts: ParseOptions {
            strict: args.strict,
        },
        max_bytes,
        handoffs,
    };
    if inputs.iter().any(|i| matches!(i, Input::Stdin)) {
        super::say_reading_stdin();
    }
    // Few inputs need no count of the cores (it reads /proc and the
    // cgroup files: six system calls at start-up).
    let threads = if inputs.len() <= CHUNK {
        1
    } else {
        parallel::cores()
    };
    let inline = threads == 1;
    // Every input is rendered into memory first (a worker's chunk, or one
    // reused buffer inline), so what reaches the writer is big writes that
    // go straight out; the buffer only gathers the small ones.
    let mut out = io::BufWriter::with_capacity(16 * 1024, super::raw_stdout());
    if format == Format::Json {
        write_out(&mut out, b"[")?;
    }
    // JSON array items are rendered each with a leading `,`: the very
    // first one drops it.
    let mut out = SkipFirst {
        inner: out,
        skip: format == Format::Json,
    };
    // Files that could not be read; folders that could not be listed.
    let mut unreadable = 0usize;
    // What ends the run early (a strict error, a refused input) ends it
    // after the JSON array is closed below; a failed write ends the
    // process where it happens.
    let mut body = || -> Result<(), CliError> {
        if inline {
            // Few inputs (one big file, stdin): rendered on this thread, one
            // at a time, each written out whole before the next is read.
            let mut worker = Worker {
                reader: FileReader::with_mapper(crate::mapped::map),
                ..Worker::default()
            };
            let mut rendered = Vec::new();
            for (index, input) in inputs.iter().enumerate() {
                rendered.clear();
                let result = render_input(
                    &mut worker,
                    (index, input),
                    &settings,
                    &mut rendered,
                    Some(&mut out),
                )
                .map_err(write_error)?;
                write_out(&mut out, &rendered)?;
                if let Err(f) = result {
                    report(&mut out, input, f, &mut unreadable)?;
                }
            }
        } else {
            // Files are read, parsed and rendered on every core, a chunk at a
            // time, and written here in input order as chunks complete: the
            // output is the same as a sequential run.
            let flow = parallel::ordered(
                &inputs,
                CHUNK,
                threads,
                Worker::default,
                |worker, first, part, chunk: &mut Chunk| {
                    chunk.bytes.clear();
                    chunk.failures.clear();
                    for (i, input) in part.iter().enumerate() {
                        // Writing into a Vec cannot fail.
                        if let Ok(Err(f)) = render_input(
                            worker,
                            (first + i, input),
                            &settings,
                            &mut chunk.bytes,
                            None,
                        ) {
                            let fatal = !matches!(f, Failure::Unreadable(_) | Failure::NotMail(_));
                            chunk.failures.push((chunk.bytes.len(), first + i, f));
                            if fatal {
                                // Nothing after it is printed.
                                break;
                            }
                        }
                    }
                },
                |chunk| {
                    let mut at = 0;
                    for (end, index, f) in chunk.failures.drain(..) {
                        if let Err(e) = write_out(&mut out, &chunk.bytes[at..end]) {
                            return ControlFlow::Break(e);
                        }
                        at = end;
                        if let Err(e) = report(&mut out, &inputs[index], f, &mut unreadable) {
                            return ControlFlow::Break(e);
                        }
                    }
                    match write_out(&mut out, &chunk.bytes[at..]) {
                        Ok(()) => ControlFlow::Continue(()),
                        Err(e) => ControlFlow::Break(e),
                    }
                },
            );
            if let ControlFlow::Break(e) = flow {
                return Err(e);
            }
        }
        Ok(())
    };
    let body = body();
    // The command ends here and the process with it: the list's paths (an
    // allocation each) go back with the process instead of being freed one
    // by one (10,000 files: 1.24 M instructions, 124 a file).
    std::mem::forget(inputs);
    let mut out = out.inner;
    if format == Format::Json {
        // Closed however the run ended: what was printed is one valid
        // array, of the messages before a strict error.
        write_out(&mut out, b"\n]\n")?;
    }
    out.flush().map_err(write_error)?;
    body?;
    let unreadable = unreadable + unlisted.files;
    if unreadable + unlisted.folders > 0 {
        let what = match (unreadable, unlisted.folders) {
            (n, 0) => format!("{} could not be read", counted(n, "file")),
            (0, d) => format!("{} could not be listed", counted(d, "folder")),
            (n, d) => format!(
                "{} could not be read and {} could not be listed",
                counted(n, "file"),
                counted(d, "folder")
            ),
        };
        return Err(CliError::bad_input(format!("{what} (listed above)")));
    }
    Ok(ExitCode::SUCCESS)
}

/// Says what went wrong with one input, in its place in the output: an
/// unreadable file is listed and skipped (the run then fails), a binary one
/// is a warning, anything else ends the run.
fn report(
    out: &mut impl Write,
    input: &Input,
    failure: Failure,
    unreadable: &mut usize,
) -> Result<(), CliError> {
    out.flush().ok();
    match failure {
        Failure::Unreadable(e) => {
            // Over the size limit (`fsio::too_large`) it was not read,
            // and says why after the path, as every command says it.
            let cannot = if e.kind() == io::ErrorKind::InvalidData {
                ""
            } else {
                "cannot read: "
            };
            crate::errln!(
                "amail: {}: {cannot}{}",
                clean_line(&input.name()),
                clean_line(&amail_core::fsio::reason(&e))
            );
            *unreadable += 1;
            Ok(())
        }
        Failure::NotMail(why) => {
            crate::errln!("amail: warning: {}: {why}", clean_line(&input.name()));
            Ok(())
        }
        Failure::Invalid(e) => Err(CliError::bad_input(e.report(&input.name()))),
        Failure::Refused(e) => Err(e),
    }
}

/// Drops the first byte written through it when `skip` is set: the `,`
/// before the first item of a JSON array.
struct SkipFirst<W> {
    inner: W,
    skip: bool,
}

impl<W: Write> Write for SkipFirst<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.skip && !buf.is_empty() {
            self.skip = false;
            return Ok(self.inner.write(&buf[1..])? + 1);
        }
        self.inner.write(buf)
    }

    fn write_all(&mut self, mut buf: &[u8]) -> io::Result<()> {
        if self.skip && !buf.is_empty() {
            self.skip = false;
            buf = &buf[1..];
        }
        self.inner.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Why one input printed nothing.
enum Failure {
    Unreadable(io::Error),
    /// Not mail (a binary file): a warning, and the run goes on.
    NotMail(&'static str),
    Invalid(amail_parser::ParseError),
    /// A handoff or A2A file refused in strict mode.
    Refused(CliError),
}

/// A chunk of inputs rendered by a worker: their output one after the
/// other, and the failures with where in that output each happened.
#[derive(Default)]
struct Chunk {
    bytes: Vec<u8>,
    failures: Vec<(usize, usize, Failure)>,
}

/// What a thread reuses from one input to the next.
#[derive(Default)]
struct Worker {
    reader: FileReader,
    folders: Folders,
    source: String,
    scratch: Vec<u8>,
}

/// Whether a path is under a `.handoffs` folder
/// (`amail_core::formats::in_handoff_dir`), asked once per folder: a
/// directory's files come folder by folder, and searching each path for
/// `.handoffs` twice was most of the protocol-file test of a mail file
/// (222 of its 350 instructions over the 10,000 small files; this, a
/// compare and a search of the file name, 126).
#[derive(Default)]
struct Folders {
    /// The last path's folder: up to and with its last `/`.
    folder: String,
    handoff: bool,
}

impl Folders {
    /// `in_handoff_dir(path)`, exactly: a match of `.handoffs/` ends at a
    /// `/`, so it lies in the folder part; a match of `.handoffs\\` holds
    /// no `/`, so it lies in one part or the other, and in the file name
    /// only where that holds a backslash. A path in the last one's folder
    /// costs a compare and one search of its file name.
    fn in_handoff_dir(&mut self, path: &str) -> bool {
        if let Some(file) = path.strip_prefix(self.folder.as_str()) {
            if memchr::memchr2(b'/', b'\\', file.as_bytes()).is_none() {
                return self.handoff;
            }
        }
        let (folder, file) =
            path.split_at(memchr::memrchr(b'/', path.as_bytes()).map_or(0, |i| i + 1));
        if folder != self.folder {
            self.folder.clear();
            self.folder.push_str(folder);
            self.handoff = in_handoff_dir(folder);
        }
        self.handoff || (file.contains('\\') && in_handoff_dir(file))
    }
}

/// `name:line` in `buf`, built without the formatting machinery.
fn source_of<'b>(buf: &'b mut String, name: &str, line: u32) -> &'b str {
    buf.clear();
    buf.push_str(name);
    buf.push(':');
    buf.push_str(itoa::Buffer::new().format(line));
    buf
}

/// Reads, parses and renders one input at the end of `out`. With a
/// `sink`, a huge message's output goes to it in pieces as it is rendered
/// (whatever `out` held first goes before them). The outer error is the
/// rendering or the sink failing; the inner one is the input's.
fn render_input(
    worker: &mut Worker,
    (index, input): (usize, &Input),
    settings: &Settings,
    out: &mut Vec<u8>,
    sink: Option<&mut dyn Write>,
) -> io::Result<Result<(), Failure>> {
    let Worker {
        reader,
        folders,
        source,
        scratch,
    } = worker;
    let stdin;
    let mut owner = None;
    let bytes = match input {
        Input::File(p) => reader.read_shared(p, settings.max_bytes).map(|(b, map)| {
            owner = map;
            b
        }),
        Input::Stdin => match amail_core::fsio::read_stdin(settings.max_bytes) {
            Ok(b) => {
                stdin = b;
                Ok(&stdin[..])
            }
            Err(e) => Err(e),
        },
    };
    let bytes = match bytes {
        Ok(b) => b,
        // A folder given as stdin is no file among others that could not
        // be read: the command was mistyped, and says so in one line.
        Err(e) if matches!(input, Input::Stdin) && e.kind() == io::ErrorKind::IsADirectory => {
            return Ok(Err(Failure::Refused(CliError::bad_input(format!(
                "<stdin>: {e}"
            )))))
        }
        Err(e) => return Ok(Err(Failure::Unreadable(e))),
    };
    if let Some(why) = amail_core::source::files::not_mail(bytes) {
        return Ok(Err(Failure::NotMail(why)));
    }
    // A big mapped document is escaped on a second core while this one
    // parses it: its body and sections are then slices of that.
    // Only a file rendered on its own, straight to the output, may be
    // big enough for that: a worker's chunk of small files skips the
    // test, its map and its handle (about 60 instructions a file over
    // the 10,000 small files).
    let mut escaped = if settings.format == Format::Jsonl && sink.is_some() {
        json::start_escaping(bytes, owner)
    } else {
        json::Pending::Done(None)
    };
    render_bytes(
        bytes,
        (index, input),
        settings,
        (folders, source, scratch),
        out,
        sink,
        &mut escaped,
    )
}

/// [`render_input`] once the input is read and is mail.
fn render_bytes(
    bytes: &[u8],
    (index, input): (usize, &Input),
    settings: &Settings,
    (folders, source, scratch): (&mut Folders, &mut String, &mut Vec<u8>),
    out: &mut Vec<u8>,
    mut sink: Option<&mut dyn Write>,
    escaped: &mut json::Pending<'_>,
) -> io::Result<Result<(), Failure>> {
    let name = input.name();
    let name = &*name;
    // Validated once, for the protocol check and the parse.
    let text = amail_parser::as_text(bytes);
    // Handoff v0.1 and A2A files are detected by content and printed as
    // their own objects; JSON items carry a leading `,` like mail items.
    // They go through a scratch buffer so that a closed stdout is reported
    // like any other write.
    // Asked at most once: `surely_not` asks only of a text that does not
    // open like JSON.
    let mut handoff = None;
    let mut is_handoff =
        || *handoff.get_or_insert_with(|| settings.is_handoff(index, name, folders));
    if !protocol::surely_not(text, &mut is_handoff) {
        scratch.clear();
        match protocol::print(
            scratch,
            (name, is_handoff()),
            text,
            &settings.format_name,
            &mut false,
            settings.opts.strict,
        ) {
            Ok(true) => {
                out.write_all(scratch)?;
                return Ok(Ok(()));
            }
            Ok(false) => {}
            Err(e) => return Ok(Err(Failure::Refused(e))),
        }
    }
    // Valid UTF-8 (nearly always) is parsed in place, the message
    // borrowing from the read buffer; `parse_bytes` repairs the rest.
    let msgs: Result<Vec<Message<'_>>, _> = match text {
        Some(text) => parse(text, &settings.opts),
        None => parse_bytes(bytes, &settings.opts),
    };
    let msgs = match msgs {
        Ok(m) => m,
        Err(e) => return Ok(Err(Failure::Invalid(e))),
    };
    for m in &msgs {
        // `name:line` is made only for the formats that print it whole
        // (JSON Lines writes its pieces).
        macro_rules! located {
            () => {
                Located {
                    source: source_of(source, name, m.line),
                    message: m,
                }
            };
        }
        match settings.format {
            Format::Json => {
                out.write_all(b",\n")?;
                // Where there is a sink, what is gathered goes first and
                // the message straight after it: a big body (written twice
                // here, as text and as its sections) is not grown whole in
                // `out`, whose fresh pages cost more than the writing.
                match sink.as_mut() {
                    Some(s) => {
                        s.write_all(out)?;
                        out.clear();
                        serde_json::to_writer_pretty(&mut **s, &located!())?;
                    }
                    None => serde_json::to_writer_pretty(&mut *out, &located!())?,
                }
            }
            Format::Jsonl => {
                // The body is the text the sections are slices of.
                // (Reborrowed for this message, the object lifetime shortened.)
                let sink = sink.as_mut().map(|s| &mut **s as &mut dyn Write);
                json::message_to_vec(out, sink, name, m, escaped.get())?;
                out.push(b'\n');
            }
            Format::Text => write_text(out, &located!())?,
            Format::Aof => {
                if let Some(env) = amail_core::bridge::to_envelope_standalone(m) {
                    out.write_all(env.to_json_line().as_bytes())?;
                    out.write_all(b"\n")?;
                }
            }
        }
        // A file of many messages goes out as it is rendered too.
        if let Some(sink) = sink.as_mut() {
            if out.len() >= json::FLUSH_AT {
                sink.write_all(out)?;
                out.clear();
            }
        }
    }
    Ok(Ok(()))
}

fn write_error(e: io::Error) -> CliError {
    super::exit_on_write_error(e)
}

fn write_out(out: &mut impl Write, bytes: &[u8]) -> Result<(), CliError> {
    out.write_all(bytes).map_err(write_error)
}

fn write_text(out: &mut impl Write, m: &Located<'_, '_>) -> io::Result<()> {
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
        clean_line(m.source),
        msg.kind,
        reply,
        clean_line(bead),
        clean_line(from),
        clean_line(&to),
        clean_line(&msg.subject)
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
            clean_line(&d.message.text())
        ));
    }
    out.write_all(s.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file under `dir`, hidden and non-mail ones too, in no order: the
    /// fixture trees that this command's parts test against whole (the mail
    /// walker would leave out what they want: `.handoffs` folders, an
    /// mcp_agent_mail archive's copies and profiles).
    pub(super) fn every_file(dir: &std::path::Path, into: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                every_file(&p, into);
            } else {
                into.push(p);
            }
        }
    }

    proptest::proptest! {
        /// The folder-by-folder answer is the path's own, whatever came
        /// before it.
        #[test]
        fn folders_answer_as_in_handoff_dir_does(
            paths in proptest::collection::vec(
                "(\\./)?(([a-z]{1,2}|\\.handoffs|x\\.handoffs|\\.handoffs\\\\a)[/\\\\]){0,3}[a-z.\\\\]{0,12}",
                1..12,
            ),
            repeat in 1usize..3,
        ) {
            let mut folders = Folders::default();
            for path in &paths {
                for _ in 0..repeat {
                    proptest::prop_assert_eq!(
                        folders.in_handoff_dir(path),
                        in_handoff_dir(path),
                        "{}", path
                    );
                }
            }
        }
    }

    #[test]
    fn folders_see_a_handoff_folder_in_either_part() {
        let mut folders = Folders::default();
        for (path, expected) in [
            ("mail/a/x.md", false),
            ("mail/a/y.md", false),
            ("mail/a/.handoffs\\y.json", true),
            ("mail/a/b/.handoffs/y.json", true),
            ("mail/a/z.md", false),
            ("mail/.handoffs/z.json", true),
            ("mail/.handoffs/q/z.json", true),
            ("mail/.handoffs", false),
            ("mail/x.handoffs", false),
            ("a.handoffs\\", true),
            ("", false),
        ] {
            assert_eq!(folders.in_handoff_dir(path), expected, "{path}");
            assert_eq!(in_handoff_dir(path), expected, "{path}");
        }
    }
}
