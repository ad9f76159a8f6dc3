//! Uses tcgemm's public API from a separate project built on stable Rust.

fn main() {
    let sm80 = tcgemm::ptx::SM80;
    assert!(
        sm80.contains(".target sm_80"),
        "the embedded sm_80 module is not PTX"
    );
    println!("tcgemm: embedded sm_80 PTX, {} bytes", sm80.len());
}
