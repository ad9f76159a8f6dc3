//! `cargo xtask ptx-diff <dir>`: the kept PTX (ptx/) compared with the copies in `<dir>` kernel by
//! kernel, so a refactor can show which kernels' code changed and which did not.
//!
//! LLVM names basic-block labels after the function's position in the module (`$L__BB64_155`:
//! block 155 of function 64) and the module lists the entries by name, so adding a kernel renumbers
//! the labels of every kernel after it. LLVM's comments move too: the call-sequence comments count
//! the module's calls (`// callseq 80, 0`), the block comments are padded to the labels' width,
//! and the first function's parameter list carries its name (`// @NAME`). A kernel whose text
//! differs only in label numbers and comments is reported as `renumbered` (same instructions, same
//! blocks; ptxas emits the same machine code) and is not a difference. A kernel that differs only
//! in the numbers of its virtual registers too (`%r225` where the base has `%r224`, one name for
//! one name throughout, and the counts of the `.reg` declarations) and of its basic blocks
//! (`$L__BB64_633` for `$L__BB64_635`: LLVM numbers blocks before removing dead ones) is reported
//! as `renamed`: the same instructions on the same values in the same blocks; not a difference
//! either. Likewise the text outside
//! the kernels is compared without comments (the header's kernel count `// Kernels: N`, the
//! `// .globl` marker of each entry, the call numbers) and blank lines.

use std::path::Path;

use tcgemm_build::{split_entries, Target};

use crate::{kept_path, read};

/// Whether `name` matches one of `allow`: an exact name, or a prefix followed by `*`.
fn allowed(name: &str, allow: &[String]) -> bool {
    allow.iter().any(|a| match a.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == a,
    })
}

/// The first line where `a` and `b` differ: `(line number, a's line, b's line)`, 1-based.
fn first_difference<'t>(a: &'t str, b: &'t str) -> (usize, &'t str, &'t str) {
    let (mut la, mut lb) = (a.lines(), b.lines());
    let mut n = 0;
    loop {
        n += 1;
        match (la.next(), lb.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (x, y) => return (n, x.unwrap_or("<end>"), y.unwrap_or("<end>")),
        }
    }
}

/// `text` without comments (from `//` to the end of the line), trailing blanks and the lines left
/// empty. Kernels written in Rust hold no `//` in their instructions (inline `asm!` included).
fn without_comments(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or("").trim_end())
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` without what names positions in the module: comments ([`without_comments`]) and the
/// function number of every basic-block label (`$L__BB64_155` becomes `$L__BB_155`).
fn without_position_numbers(text: &str) -> String {
    let code = without_comments(text);
    let mut out = String::with_capacity(code.len());
    let mut rest = code.as_str();
    while let Some(i) = rest.find("BB") {
        let (head, tail) = rest.split_at(i + 2);
        out.push_str(head);
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        let after = &tail[digits..];
        let is_label = digits > 0 && after.starts_with('_');
        rest = if is_label { after } else { tail };
    }
    out.push_str(rest);
    out
}

/// `text` without position numbers ([`without_position_numbers`]) and its `.reg` declarations,
/// its virtual registers (`%` lowercase letters digits, e.g. `%rd12`) and basic-block labels
/// (`$L__BB_155`) renumbered per kind in order of first use: two kernels that differ only in the
/// names of their registers and blocks compare equal.
fn with_registers_renamed(text: &str) -> String {
    const LABEL: &str = "$L__BB_";
    let code = without_position_numbers(text);
    let mut names: Vec<(String, String)> = Vec::new();
    let mut out = String::with_capacity(code.len());
    for line in code.lines().filter(|l| !l.trim_start().starts_with(".reg")) {
        let mut rest = line;
        while let Some(i) = rest.find(['%', '$']) {
            let (head, tail) = rest.split_at(i);
            out.push_str(head);
            // the kind: `%` and the register's letters, or the label prefix
            let kind_len = if tail.starts_with(LABEL) {
                LABEL.len()
            } else if let Some(reg) = tail.strip_prefix('%') {
                1 + reg.bytes().take_while(u8::is_ascii_lowercase).count()
            } else {
                0
            };
            let digits = tail[kind_len..]
                .bytes()
                .take_while(u8::is_ascii_digit)
                .count();
            if kind_len <= 1 || digits == 0 {
                out.push_str(&tail[..1]);
                rest = &tail[1..];
                continue;
            }
            let (name, after) = tail.split_at(kind_len + digits);
            let kind = &name[..kind_len];
            let renamed = match names.iter().find(|(n, _)| n == name) {
                Some((_, r)) => r.clone(),
                None => {
                    let k = names
                        .iter()
                        .filter(|(_, r)| r.starts_with(&format!("{kind}#")))
                        .count();
                    let r = format!("{kind}#{k}");
                    names.push((name.to_string(), r.clone()));
                    r
                }
            };
            out.push_str(&renamed);
            rest = after;
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

/// Counts of one comparison.
#[derive(Default)]
struct Tally {
    identical: usize,
    renumbered: usize,
    renamed: usize,
    differ: usize,
    allowed: usize,
    unexplained: Vec<String>,
}

/// Compares one module; prints one line per kernel.
fn compare_module(base: &str, kept: &str, target: Target, allow: &[String], t: &mut Tally) {
    let (b, k) = (split_entries(base), split_entries(kept));
    let cpu = target.cpu();
    for (name, text) in &k.entries {
        let status = match b.entries.iter().find(|(n, _)| n == name) {
            Some((_, old)) if old == text => {
                t.identical += 1;
                println!("identical  {cpu:<6}  {name}");
                continue;
            }
            Some((_, old)) if without_position_numbers(old) == without_position_numbers(text) => {
                t.renumbered += 1;
                println!(
                    "renumbered {cpu:<6}  {name} (identical but for label numbers and comments)"
                );
                continue;
            }
            Some((_, old)) if with_registers_renamed(old) == with_registers_renamed(text) => {
                t.renamed += 1;
                println!(
                    "renamed    {cpu:<6}  {name} (identical but for register and block numbers and comments)"
                );
                continue;
            }
            Some((_, old)) => {
                let (line, was, now) = first_difference(old, text);
                format!("line {line}: `{}` -> `{}`", was.trim(), now.trim())
            }
            None => "not in the base copy".to_string(),
        };
        t.differ += 1;
        let mark = if allowed(name, allow) {
            t.allowed += 1;
            "(allowed)"
        } else {
            t.unexplained.push(format!("{name} ({cpu})"));
            ""
        };
        println!("differs    {cpu:<6}  {name} {mark} {status}");
    }
    for (name, _) in b
        .entries
        .iter()
        .filter(|(n, _)| !k.entries.iter().any(|(m, _)| m == n))
    {
        t.differ += 1;
        if allowed(name, allow) {
            t.allowed += 1;
        } else {
            t.unexplained.push(format!("{name} ({cpu})"));
        }
        println!("differs    {cpu:<6}  {name} (only in the base copy)");
    }
    let order = |e: &[(String, String)]| e.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    if order(&b.entries) != order(&k.entries) {
        println!("note       {cpu:<6}  the kernels appear in a different order");
    }
    if without_comments(&b.rest) == without_comments(&k.rest) {
        println!("identical  {cpu:<6}  (module text outside the kernels, but for comments)");
    } else {
        let (line, was, now) = first_difference(&b.rest, &k.rest);
        println!(
            "differs    {cpu:<6}  (module text outside the kernels) line {line}: `{}` -> `{}`",
            was.trim(),
            now.trim()
        );
        t.unexplained
            .push(format!("module text outside the kernels ({cpu})"));
    }
}

/// `cargo xtask ptx-diff <dir> [--allow NAME|PREFIX*]...`: every kernel of the kept modules in ptx/
/// compared with its copy in `<dir>` (same file names). Fails when a kernel differs (or exists in only
/// one copy) that no `--allow` names, or when the text outside the kernels differs.
pub fn ptx_diff(root: &Path, dir: &Path, allow: &[String]) -> Result<(), String> {
    let mut t = Tally::default();
    for target in Target::ALL {
        let base = read(&dir.join(target.ptx_file()))?;
        let kept = read(&kept_path(root, target))?;
        compare_module(&base, &kept, target, allow, &mut t);
    }
    println!(
        "ptx-diff: {} kernels: {} identical, {} identical but for label numbers and comments, {} but for register and block numbers, {} differ ({} on the allow list {:?})",
        t.identical + t.renumbered + t.renamed + t.differ,
        t.identical,
        t.renumbered,
        t.renamed,
        t.differ,
        t.allowed,
        allow
    );
    if t.unexplained.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "differences not on the allow list: {}",
            t.unexplained.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allow_list_takes_names_and_prefixes() {
        let allow = ["convert_*".to_string(), "ceiling_ffma_f32".to_string()];
        assert!(allowed("convert_f32_to_f16", &allow));
        assert!(allowed("ceiling_ffma_f32", &allow));
        assert!(!allowed("ceiling_mma_m16n8k8_tf32", &allow));
    }

    #[test]
    fn finds_the_first_differing_line() {
        assert_eq!(first_difference("a\nb\nc", "a\nx\nc"), (2, "b", "x"));
        assert_eq!(first_difference("a", "a\nb"), (2, "<end>", "b"));
    }

    #[test]
    fn label_numbers_are_dropped_and_nothing_else() {
        let a = "@%p7 bra \t$L__BB64_155;\n$L__BB64_3:\n\tBB %bb";
        let b = "@%p7 bra \t$L__BB67_155;\n$L__BB67_3:\n\tBB %bb";
        assert_eq!(without_position_numbers(a), without_position_numbers(b));
        assert!(without_position_numbers(a).contains("$L__BB_155;"));
        // other block numbers and registers stay
        assert_ne!(
            without_position_numbers("$L__BB64_155"),
            without_position_numbers("$L__BB64_156")
        );
        assert_ne!(
            without_position_numbers("%r64_1"),
            without_position_numbers("%r65_1")
        );
    }

    #[test]
    fn registers_are_renamed_consistently_and_nothing_else() {
        let a = "\t.reg .b32 \t%r<300>;\n\tadd.s32 \t%r225, %r3, %r225;\n\tmov.u32 \t%r8, %tid.x;\n\tld.u64 %rd2, [%rd1+8];";
        let b = "\t.reg .b32 \t%r<299>;\n\tadd.s32 \t%r224, %r3, %r224;\n\tmov.u32 \t%r9, %tid.x;\n\tld.u64 %rd7, [%rd1+8];";
        assert_eq!(with_registers_renamed(a), with_registers_renamed(b));
        assert!(with_registers_renamed(a).contains("%r#0, %r#1, %r#0;"));
        // one name for two, an operand moved, or another instruction: still a difference
        let two =
            "\tadd.s32 \t%r225, %r3, %r226;\n\tmov.u32 \t%r8, %tid.x;\n\tld.u64 %rd2, [%rd1+8];";
        let moved =
            "\tadd.s32 \t%r225, %r225, %r3;\n\tmov.u32 \t%r8, %tid.x;\n\tld.u64 %rd2, [%rd1+8];";
        let other =
            "\tsub.s32 \t%r225, %r3, %r225;\n\tmov.u32 \t%r8, %tid.x;\n\tld.u64 %rd2, [%rd1+8];";
        for c in [two, moved, other] {
            assert_ne!(with_registers_renamed(a), with_registers_renamed(c), "{c}");
        }
        // block numbers likewise: consistent renumbering only
        let l1 = "@%p1 bra \t$L__BB3_616;\n$L__BB3_616:\n\tbra.uni $L__BB3_2;";
        let l2 = "@%p1 bra \t$L__BB5_844;\n$L__BB5_844:\n\tbra.uni $L__BB5_3;";
        let l3 = "@%p1 bra \t$L__BB5_844;\n$L__BB5_845:\n\tbra.uni $L__BB5_3;";
        assert_eq!(with_registers_renamed(l1), with_registers_renamed(l2));
        assert_ne!(with_registers_renamed(l1), with_registers_renamed(l3));
    }

    #[test]
    fn comments_are_dropped_and_nothing_else() {
        let a = "\t{ // callseq 80, 0\n\tcall.uni f, ();\n\t} // callseq 80\n$L__BB5_3:   // Header=BB5_9\n)\n";
        let b = "\t{ // callseq 164, 0\n\tcall.uni f, ();\n\t} // callseq 164\n$L__BB11_3:  // Header=BB11_9\n)   // @k\n";
        assert_eq!(without_position_numbers(a), without_position_numbers(b));
        assert_eq!(
            without_position_numbers(a),
            "\t{\n\tcall.uni f, ();\n\t}\n$L__BB_3:\n)"
        );
        // the instructions stay
        let c = "\t{ // callseq 80, 0\n\tcall.uni g, ();\n\t} // callseq 80\n$L__BB5_3:\n)\n";
        assert_ne!(without_position_numbers(a), without_position_numbers(c));
    }
}
