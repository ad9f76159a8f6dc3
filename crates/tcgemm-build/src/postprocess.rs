//! Text passes over the PTX `llc` prints: launch bounds, stable symbol names, entry checks.

use std::collections::HashMap;

use tcgemm_kernels::config::{KernelSpec, ParamsKind};

/// Names of the `.visible .entry` kernels of a PTX module, in order.
pub fn entry_names(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(entry_decl)
        .map(|(_, name)| name.to_string())
        .collect()
}

/// A PTX module split at its kernels: each `.entry` (from its declaration line to the `}` that
/// closes its body) apart, and the rest of the module (header, declarations, `.func` definitions)
/// as one text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EntryTexts {
    /// `(name, text)` of each `.entry`, in module order.
    pub entries: Vec<(String, String)>,
    /// Everything outside the entries, in order.
    pub rest: String,
}

/// Splits `ptx` into its entries and the rest (see [`EntryTexts`]). An entry's body ends where its
/// braces balance again (inline-asm scopes and vector operands nest inside it).
///
/// ```
/// let ptx = ".version 7.0\n.visible .entry k(\n)\n{\n\t{\n.reg .pred p;\n}\n\tst.v2 [a], {b, c};\n}\n// end\n";
/// let m = tcgemm_build::split_entries(ptx);
/// assert_eq!(m.entries.len(), 1);
/// assert_eq!(m.entries[0].0, "k");
/// assert!(m.entries[0].1.ends_with("{b, c};\n}\n"));
/// assert_eq!(m.rest, ".version 7.0\n// end\n");
/// ```
pub fn split_entries(ptx: &str) -> EntryTexts {
    let mut out = EntryTexts::default();
    let mut current: Option<(String, String)> = None;
    let mut depth = 0i64;
    let mut opened = false;
    for line in ptx.lines() {
        if let Some((_, text)) = current.as_mut() {
            text.push_str(line);
            text.push('\n');
            depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
            opened |= depth > 0;
            if opened && depth <= 0 {
                out.entries.extend(current.take());
            }
        } else if let Some((_, name)) = entry_decl(line) {
            current = Some((name.to_string(), format!("{line}\n")));
            depth = 0;
            opened = false;
        } else {
            out.rest.push_str(line);
            out.rest.push('\n');
        }
    }
    // an entry the text does not close stays an entry (its text ends where the module ends)
    out.entries.extend(current);
    out
}

/// `(visible, name)` when `line` opens an `.entry` declaration.
fn entry_decl(line: &str) -> Option<(bool, &str)> {
    let t = line.trim_start();
    let (visible, rest) = if let Some(r) = t.strip_prefix(".visible .entry ") {
        (true, r)
    } else if let Some(r) = t.strip_prefix(".weak .entry ") {
        (false, r)
    } else {
        (false, t.strip_prefix(".entry ")?)
    };
    let name = rest
        .trim_start()
        .split(|c: char| c == '(' || c.is_whitespace())
        .next()?;
    (!name.is_empty()).then_some((visible, name))
}

/// After each kernel's parameter list, writes `.maxntid THREADS, 1, 1` and `.minnctapersm MIN` from
/// `kernels` (replacing any such directives already there). Errors name an entry missing from
/// `kernels` or a declaration that does not parse.
pub fn add_launch_bounds(ptx: &str, kernels: &[KernelSpec]) -> Result<String, String> {
    let lines: Vec<&str> = ptx.lines().collect();
    let mut out = String::with_capacity(ptx.len() + 64 * kernels.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        out.push_str(line);
        out.push('\n');
        i += 1;
        let Some((_, name)) = entry_decl(line) else {
            continue;
        };
        let spec = kernels.iter().find(|k| k.name == name).ok_or_else(|| {
            format!("the module has an entry `{name}` that config::KERNELS does not list")
        })?;
        // The parameter list closes on this line (`name()` / `name(...)`) or on a line starting with `)`.
        let after_name = line.split_once(name).map(|(_, r)| r).unwrap_or("");
        // TMA kernels take a `TmaParams` whose tensor maps must be 64-byte aligned, but rustc's PTX
        // ABI caps parameter alignment at 16: raise the declared alignment of that parameter here.
        let tma_param = format!(".param .align 16 .b8 {name}_param_0[");
        let mut raised = spec.family.params() != ParamsKind::Tma;
        if !after_name.contains(')') {
            loop {
                let Some(l) = lines.get(i) else {
                    return Err(format!("unterminated parameter list of entry `{name}`"));
                };
                if !raised && l.contains(&tma_param) {
                    out.push_str(&l.replace(".align 16", ".align 64"));
                    raised = true;
                } else {
                    out.push_str(l);
                }
                out.push('\n');
                i += 1;
                if l.trim_start().starts_with(')') {
                    break;
                }
            }
        }
        if !raised {
            return Err(format!(
                "TMA entry `{name}` does not declare its parameter as `{tma_param}...]`"
            ));
        }
        // Drop launch-bound directives LLVM may have written itself; the table is authoritative.
        while let Some(l) = lines.get(i) {
            let t = l.trim_start();
            if t.starts_with(".maxntid")
                || t.starts_with(".minnctapersm")
                || t.starts_with(".reqntid")
            {
                i += 1;
            } else {
                break;
            }
        }
        out.push_str(&format!(
            ".maxntid {}, 1, 1\n.minnctapersm {}\n",
            spec.threads, spec.min_blocks_per_sm
        ));
    }
    Ok(out)
}

/// Drops the `// begin inline asm` / `// end inline asm` comment lines `llc` writes around every
/// inline `asm!` (a quarter of the lines of a typical module; the PTX is embedded in every binary).
pub fn drop_asm_markers(ptx: &str) -> String {
    let mut out = String::with_capacity(ptx.len());
    for line in ptx.lines() {
        let t = line.trim();
        if t != "// begin inline asm" && t != "// end inline asm" {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Replaces the hashes rustc puts into mangled names by numbers in order of first appearance, so the
/// PTX does not depend on where the toolchain or the sources live: v0 crate disambiguators
/// (`Cs<base62>_` inside `_R...` symbols) and legacy hashes (`17h<16 hex>E` inside `_ZN...` symbols).
/// Distinct hashes stay distinct.
pub fn normalize_symbols(ptx: &str) -> String {
    let mut v0: HashMap<String, String> = HashMap::new();
    let mut legacy: HashMap<String, String> = HashMap::new();
    let mut out = String::with_capacity(ptx.len());
    let b = ptx.as_bytes();
    let mut i = 0;
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    while i < b.len() {
        if !is_ident(b[i]) {
            // Copy a run of non-identifier characters (keeps UTF-8 intact).
            let start = i;
            while i < b.len() && !is_ident(b[i]) {
                i += 1;
            }
            out.push_str(&ptx[start..i]);
            continue;
        }
        let start = i;
        while i < b.len() && is_ident(b[i]) {
            i += 1;
        }
        let token = &ptx[start..i];
        // Only tokens that start an identifier (not the tail of `%r_R...`-like text) are symbols.
        let at_word_start = start == 0 || !matches!(b[start - 1], b'%' | b'.');
        if at_word_start && token.starts_with("_R") {
            out.push_str(&rewrite_v0(token, &mut v0));
        } else if at_word_start && token.starts_with("_ZN") {
            out.push_str(&rewrite_legacy(token, &mut legacy));
        } else {
            out.push_str(token);
        }
    }
    out
}

fn rewrite_v0(token: &str, map: &mut HashMap<String, String>) -> String {
    let b = token.as_bytes();
    let mut out = String::with_capacity(token.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'C' && b.get(i + 1) == Some(&b's') {
            let mut j = i + 2;
            while j < b.len() && b[j].is_ascii_alphanumeric() && j - i <= 14 {
                j += 1;
            }
            // `Cs<base62>_` followed by the crate name's decimal length.
            if j > i + 2 && b.get(j) == Some(&b'_') && b.get(j + 1).is_some_and(u8::is_ascii_digit)
            {
                let key = &token[i + 2..j];
                let n = map.len();
                let id = map.entry(key.to_string()).or_insert_with(|| base62(n));
                out.push_str("Cs");
                out.push_str(id);
                out.push('_');
                i = j + 1;
                continue;
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

fn rewrite_legacy(token: &str, map: &mut HashMap<String, String>) -> String {
    let mut out = String::with_capacity(token.len());
    let mut rest = token;
    while let Some(p) = rest.find("17h") {
        let hash = rest.get(p + 3..p + 19);
        let ok = hash.is_some_and(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
            && rest.as_bytes().get(p + 19) == Some(&b'E');
        if !ok {
            out.push_str(&rest[..p + 3]);
            rest = &rest[p + 3..];
            continue;
        }
        let n = map.len();
        let id = map
            .entry(hash.unwrap_or_default().to_string())
            .or_insert_with(|| format!("{n:016x}"));
        out.push_str(&rest[..p + 3]);
        out.push_str(id);
        rest = &rest[p + 19..];
    }
    out.push_str(rest);
    out
}

fn base62(mut n: usize) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut s = Vec::new();
    loop {
        s.push(DIGITS[n % 62]);
        n /= 62;
        if n == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// Names of the functions an LLVM IR text defines with the `ptx_kernel` calling convention.
pub fn ptx_kernels_in_ir(ll: &str) -> Vec<String> {
    ll.lines()
        .filter(|l| l.starts_with("define ") && l.contains(" ptx_kernel "))
        .filter_map(|l| {
            let at = l.find('@')?;
            let rest = &l[at + 1..];
            let name = if let Some(q) = rest.strip_prefix('"') {
                q.split('"').next()?
            } else {
                rest.split('(').next()?
            };
            Some(name.to_string())
        })
        .collect()
}

/// Functions the module declares but does not define (`.extern .func NAME`): unresolved calls.
pub fn extern_functions(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| l.trim_start().strip_prefix(".extern .func "))
        .map(|rest| {
            // `.extern .func (.param .b32 func_retval0) name(` or `.extern .func name(`
            let rest = match rest.trim_start().strip_prefix('(') {
                Some(r) => r.split_once(')').map(|(_, r)| r).unwrap_or(r),
                None => rest,
            };
            rest.trim()
                .split(|c: char| c == '(' || c.is_whitespace() || c == ';')
                .next()
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tcgemm_kernels::config::{KernelSpec, KERNELS};

    fn spec(name: &'static str, threads: u32, min_blocks_per_sm: u32) -> KernelSpec {
        KernelSpec {
            name,
            threads,
            min_blocks_per_sm,
            ..KERNELS[0]
        }
    }

    const PTX: &str = "\
.version 7.0
.target sm_80
.address_size 64

.visible .entry axpy(
\t.param .u32 axpy_param_0,
\t.param .u64 .ptr .align 1 axpy_param_1
)
{
\tret;
}
.visible .entry noargs()
.maxntid 32, 1, 1
{
\tret;
}
";

    #[test]
    fn writes_launch_bounds_after_parameters() {
        let k = [spec("axpy", 256, 2), spec("noargs", 128, 4)];
        let out = add_launch_bounds(PTX, &k).unwrap();
        assert!(out.contains(" axpy_param_1\n)\n.maxntid 256, 1, 1\n.minnctapersm 2\n{\n"));
        assert!(out.contains(".entry noargs()\n.maxntid 128, 1, 1\n.minnctapersm 4\n{\n"));
        assert!(!out.contains(".maxntid 32"));
        assert_eq!(entry_names(&out), ["axpy", "noargs"]);
        let err = add_launch_bounds(PTX, &k[..1]).unwrap_err();
        assert!(err.contains("`noargs`"), "{err}");
    }

    #[test]
    fn drops_inline_asm_markers_only() {
        let ptx = "\t// begin inline asm\n\tmma.sync;\n\t// end inline asm\n// Start of file scope inline assembly\n";
        assert_eq!(
            drop_asm_markers(ptx),
            "\tmma.sync;\n// Start of file scope inline assembly\n"
        );
    }

    #[test]
    fn numbers_mangling_hashes() {
        let a = ".func _RNvNtCsjyqfColeDL_4core9panicking9panic_fmt()\n\
                 call.uni _RNvCshNgR7fIODgQ_3spk6helper, (_RNvCshNgR7fIODgQ_3spk6helper_param_0);\n\
                 call _ZN4core3ptr13drop_in_place17h0123456789abcdefE; _ZN1a17hffffffffffffffffE\n\
                 ld.param.b64 %rd1, [axpy_param_4];\n";
        let b = a
            .replace("jyqfColeDL", "Q9x")
            .replace("hNgR7fIODgQ", "zz")
            .replace("0123456789abcdef", "fedcba9876543210");
        let na = normalize_symbols(a);
        assert_eq!(na, normalize_symbols(&b));
        assert!(na.contains("_RNvNtCs0_4core9panicking9panic_fmt"), "{na}");
        assert!(
            na.contains("_RNvCs1_3spk6helper, (_RNvCs1_3spk6helper_param_0)"),
            "{na}"
        );
        assert!(
            na.contains("_ZN4core3ptr13drop_in_place17h0000000000000000E"),
            "{na}"
        );
        assert!(na.contains("_ZN1a17h0000000000000001E"), "{na}");
        assert!(na.contains("[axpy_param_4]"));
    }

    #[test]
    fn finds_kernels_in_ir_and_unresolved_calls() {
        let ll = "define ptx_kernel void @axpy(i32 %0) #0 {\n\
                  define internal void @helper() {\n\
                  define dso_local ptx_kernel void @\"odd name\"() {\n";
        assert_eq!(ptx_kernels_in_ir(ll), ["axpy", "odd name"]);
        let ptx = ".extern .func (.param .b32 func_retval0) foo\n(\n.extern .func bar();\n";
        assert_eq!(extern_functions(ptx), ["foo", "bar"]);
    }
}
