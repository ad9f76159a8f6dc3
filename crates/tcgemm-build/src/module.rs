//! Building one PTX module from the kernels crate's rlibs: link the crate's bitcode, pull in
//! what it needs from `core`/`compiler_builtins`, keep this target's kernels, compile to PTX, then
//! post-process and check (see the crate docs for the whole build).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{
    add_launch_bounds, cargo, entry_names, io_err, normalize_symbols, postprocess, run, BuildError,
    BuildOptions, KernelSpec, Target, Tools,
};

/// Extracts the bitcode members of `rlib` into `dir`; returns them sorted.
fn extract(tools: &Tools, rlib: &Path, dir: &Path) -> Result<Vec<PathBuf>, BuildError> {
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let mut x = Command::new(&tools.ar);
    x.arg("x").arg(rlib).current_dir(dir);
    run(&mut x, true)?;
    let mut members: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(io_err(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "o"))
        .collect();
    members.sort();
    Ok(members)
}

/// Functions `bc` references but does not define (LLVM intrinsics excluded).
fn undefined(tools: &Tools, bc: &Path) -> Result<BTreeSet<String>, BuildError> {
    let mut nm = Command::new(&tools.nm);
    nm.arg("--undefined-only")
        .arg("--format=just-symbols")
        .arg(bc);
    Ok(run(&mut nm, true)?
        .lines()
        .map(str::trim)
        .filter(|s| !s.is_empty() && !s.starts_with("llvm."))
        .map(String::from)
        .collect())
}

/// Builds one module and returns its final text: the crate's bitcode, what it needs from
/// `core`/`compiler_builtins`, this target's kernels kept visible and compiled to PTX, then
/// post-processed and checked.
pub(crate) fn build_module(
    opts: &BuildOptions,
    tools: &Tools,
    target: Target,
    work: &Path,
) -> Result<String, BuildError> {
    let rlibs = cargo::cargo_build(opts, target)?;
    let kernels: Vec<&KernelSpec> = opts.kernels.iter().filter(|k| k.built_in(target)).collect();
    let (crate_bc, lib_members) = link_crate(opts, tools, &rlibs, work)?;
    let linked = link_needed(tools, crate_bc, &lib_members, work)?;
    let ptx = emit_ptx(opts, tools, target, &kernels, &linked, work)?;
    finish(tools, target, &kernels, &ptx)
}

/// Step 1: the kernels crate's own bitcode, linked into one file, and the members of the other rlibs.
/// Every kernel the source defines must be in the table (for some target).
fn link_crate(
    opts: &BuildOptions,
    tools: &Tools,
    rlibs: &[cargo::Rlib],
    work: &Path,
) -> Result<(PathBuf, Vec<PathBuf>), BuildError> {
    let mut crate_members = Vec::new();
    let mut lib_members = Vec::new();
    for (i, rlib) in rlibs.iter().enumerate() {
        let dir = work.join(format!("{i:02}-{}", rlib.crate_name));
        let members = extract(tools, &rlib.path, &dir)?;
        if rlib.primary {
            crate_members.extend(members);
        } else {
            lib_members.extend(members);
        }
    }
    let crate_bc = work.join("crate.bc");
    let mut link = Command::new(&tools.link);
    link.args(&crate_members).arg("-o").arg(&crate_bc);
    run(&mut link, true)?;

    let mut dis = Command::new(&tools.dis);
    dis.arg(&crate_bc).arg("-o").arg("-");
    let ir = run(&mut dis, true)?;
    let unlisted: Vec<String> = postprocess::ptx_kernels_in_ir(&ir)
        .into_iter()
        .filter(|name| !opts.kernels.iter().any(|k| k.name == name))
        .collect();
    if !unlisted.is_empty() {
        return Err(BuildError::UnlistedKernels(unlisted));
    }
    Ok((crate_bc, lib_members))
}

/// Step 2: pulls in what is needed from `core`/`compiler_builtins`, until nothing new resolves.
fn link_needed(
    tools: &Tools,
    crate_bc: PathBuf,
    lib_members: &[PathBuf],
    work: &Path,
) -> Result<PathBuf, BuildError> {
    let mut linked = crate_bc;
    let mut missing = undefined(tools, &linked)?;
    for round in 0..4 {
        if missing.is_empty() {
            break;
        }
        let next = work.join(format!("linked{round}.bc"));
        let mut link = Command::new(&tools.link);
        link.arg(&linked)
            .arg("--only-needed")
            .args(lib_members)
            .arg("-o")
            .arg(&next);
        run(&mut link, true)?;
        linked = next;
        let now = undefined(tools, &linked)?;
        if now == missing {
            break;
        }
        missing = now;
    }
    Ok(linked)
}

/// Step 3: only this target's kernels stay visible (everything else is inlined or dropped); `opt` at
/// O3, then `llc` to PTX.
fn emit_ptx(
    opts: &BuildOptions,
    tools: &Tools,
    target: Target,
    kernels: &[&KernelSpec],
    linked: &Path,
    work: &Path,
) -> Result<String, BuildError> {
    let opt_bc = work.join("opt.bc");
    let names: Vec<&str> = kernels.iter().map(|k| k.name).collect();
    let mut opt = Command::new(&tools.opt);
    opt.arg(linked)
        .arg(format!("--internalize-public-api-list={}", names.join(",")))
        .arg("-passes=internalize,globaldce,default<O3>")
        .args(&opts.llvm_args)
        .arg("-o")
        .arg(&opt_bc);
    run(&mut opt, true)?;
    let raw_ptx = work.join("module.ptx");
    let mut llc = Command::new(&tools.llc);
    llc.arg(format!("-mcpu={}", target.cpu()))
        .arg("-O3")
        .arg(&opt_bc)
        .arg("-o")
        .arg(&raw_ptx);
    run(&mut llc, true)?;
    fs::read_to_string(&raw_ptx).map_err(io_err(&raw_ptx))
}

/// Step 4: post-processes (launch bounds, numbered symbols, no asm markers), checks that nothing is
/// unresolved and every kernel is there, and adds the header.
fn finish(
    tools: &Tools,
    target: Target,
    kernels: &[&KernelSpec],
    ptx: &str,
) -> Result<String, BuildError> {
    let unresolved = postprocess::extern_functions(ptx);
    if !unresolved.is_empty() {
        return Err(BuildError::Unresolved {
            target,
            symbols: unresolved,
        });
    }
    let table: Vec<KernelSpec> = kernels.iter().map(|k| **k).collect();
    let ptx =
        add_launch_bounds(ptx, &table).map_err(|message| BuildError::Ptx { target, message })?;
    let ptx = postprocess::drop_asm_markers(&normalize_symbols(&ptx));
    let present = entry_names(&ptx);
    if let Some(k) = kernels
        .iter()
        .find(|k| !present.iter().any(|p| p == k.name))
    {
        return Err(BuildError::MissingKernel {
            target,
            name: k.name.to_string(),
        });
    }
    let mut header = format!(
        "//\n// tcgemm {} module: built from the tcgemm-kernels crate by tcgemm-build. Generated; do not edit.\n\
         // Rebuild the kept copy in ptx/ with `cargo xtask ptx`.\n// Compiler: {}",
        target.cpu(),
        tools.version.summary
    );
    if let Some(llvm) = &tools.version.llvm {
        header.push_str(&format!(", LLVM {llvm}"));
    }
    header.push_str(&format!("\n// Kernels: {}\n", kernels.len()));
    Ok(header + &ptx)
}
