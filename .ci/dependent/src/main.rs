//! Uses tcgemm's public API from a separate project built on stable Rust.

fn main() {
    let sm80 = tcgemm::images::ptx(tcgemm::Target::Sm80).expect("the embedded sm_80 PTX unpacks");
    assert!(
        sm80.contains(".target sm_80"),
        "the embedded sm_80 module is not PTX"
    );
    let machine = tcgemm::images::machine_code(tcgemm::Target::Sm80);
    assert!(!machine.is_empty(), "no machine code embedded for the sm_80 module");
    println!(
        "tcgemm: embedded sm_80 PTX ({} bytes) and machine code for {:?}",
        sm80.len(),
        machine.iter().map(ToString::to_string).collect::<Vec<_>>()
    );
}
