//! Command-line flags shared by the examples: `--flag value`, `--flag=value`, bare positionals.

/// The process's arguments, read as flags.
pub struct Flags {
    it: std::iter::Skip<std::env::Args>,
    inline: Option<String>,
}

impl Flags {
    /// The arguments after the program name.
    pub fn from_env() -> Flags {
        Flags {
            it: std::env::args().skip(1),
            inline: None,
        }
    }

    /// The next argument: a flag (its `=value`, if any, is kept for [`Flags::value`]) or a
    /// positional argument.
    pub fn next_flag(&mut self) -> Option<String> {
        let arg = self.it.next()?;
        match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => {
                self.inline = Some(v.to_string());
                Some(f.to_string())
            }
            _ => {
                self.inline = None;
                Some(arg)
            }
        }
    }

    /// The value of the flag just read: its `=value`, else the next argument.
    pub fn value(&mut self, name: &str) -> Result<String, String> {
        self.inline
            .take()
            .or_else(|| self.it.next())
            .ok_or_else(|| format!("{name} needs a value"))
    }

    /// The value of the flag just read, as a count.
    pub fn number(&mut self, name: &str) -> Result<usize, String> {
        let v = self.value(name)?;
        v.parse::<usize>().map_err(|e| format!("{name} {v}: {e}"))
    }
}
