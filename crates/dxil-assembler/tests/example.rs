//! The repository's example listing, `examples/compute-add.ll`, assembles into a container that
//! the container reader (what `dxil info` prints) and the DXIL metadata reader accept, with the
//! parts a cs_6_0 shader at validator 1.8 has.

use dxil_assembler::{AssembleOptions, assemble};
use dxil_container::parts::psv::StageInfo;
use dxil_container::{Container, DigestStatus, ResourceKind, ResourceType, ShaderKind};

fn example() -> String {
    let path = format!(
        "{}/../../examples/compute-add.ll",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn compute_add_example_assembles() {
    let text = example();
    let bytes = assemble(&text, &AssembleOptions::default()).unwrap();
    let c = Container::parse(&bytes).unwrap();
    assert!(c.problems().is_empty(), "{:?}", c.problems());
    let parts: Vec<String> = c.parts().iter().map(|p| p.fourcc.to_string()).collect();
    assert_eq!(parts, ["SFI0", "ISG1", "OSG1", "PSV0", "HASH", "DXIL"]);
    assert_eq!(c.digest_status(), DigestStatus::Signed);
    // Every part decodes (this is what `dxil info` shows).
    for p in c.parts() {
        c.decode(p).unwrap_or_else(|e| panic!("{}: {e}", p.fourcc));
    }
    serde_json::to_string(&c.info()).unwrap();

    let psv = c.psv().unwrap().unwrap();
    assert_eq!(psv.runtime_info.stage_info, StageInfo::None);
    assert_eq!(psv.runtime_info.num_threads, Some([64, 1, 1]));
    assert_eq!(psv.entry_function_name().unwrap().unwrap(), "main");
    let bindings: Vec<_> = psv
        .resources
        .iter()
        .map(|r| (r.res_type, r.lower_bound, r.upper_bound, r.res_kind))
        .collect();
    assert_eq!(
        bindings,
        [
            (ResourceType::SRVRaw, 0, 0, Some(ResourceKind::RawBuffer)),
            (ResourceType::SRVRaw, 1, 1, Some(ResourceKind::RawBuffer)),
            (ResourceType::UAVRaw, 0, 0, Some(ResourceKind::RawBuffer)),
        ]
    );
    assert!(c.input_signature().unwrap().unwrap().elements.is_empty());

    let program = c.program().unwrap().unwrap();
    assert_eq!(program.shader_kind, ShaderKind::Compute);
    assert_eq!((program.sm_major, program.sm_minor), (6, 0));
    let module = dxil_module::read_module(program.bitcode, 0).unwrap();
    let dxil = dxil_shader::DxilModule::from_module(&module).unwrap();
    let entry = dxil.entry_point().unwrap();
    assert_eq!(entry.name, "main");
    assert_eq!(entry.properties.num_threads, Some([64, 1, 1]));
    assert_eq!(dxil.resources.srvs.len(), 2);
    assert_eq!(dxil.resources.uavs.len(), 1);

    // The listing is the one `dxil dis` prints for the container (comments aside).
    let code = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with(';'))
            .map(|l| l.split("  ;").next().unwrap_or(l).to_string())
            .collect()
    };
    assert_eq!(code(&dxil_text::module_to_string(&module)), code(&text));
}
