//! The function and subobject tables of every library in the corpus: each container's `RDAT`
//! decodes, lists exactly the functions its listing defines with a shader kind, and the
//! subobjects of vkd3d-proton's subobject tests read as their HLSL declares them.

use dxil_container::{Container, RdatLibrary, ShaderKind, SubobjectData};

fn library(bytes: &[u8], name: &str) -> RdatLibrary {
    let c = Container::parse(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    c.rdat_library()
        .unwrap_or_else(|| panic!("{name}: no RDAT part"))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_library_lists_its_functions() {
    let Some(root) = dxil_corpus::corpus_dir() else {
        return;
    };
    let mut libraries = 0;
    let mut functions = 0;
    for path in dxil_corpus::containers_with_listing(&root) {
        let listing_path = path.with_extension("ll");
        let listing = std::fs::read_to_string(&listing_path).unwrap();
        if !listing.contains("!{!\"lib\", i32 6") {
            continue;
        }
        let name = dxil_corpus::relative_name(&root, &path);
        let bytes = std::fs::read(&path).unwrap();
        let lib = library(&bytes, &name);
        libraries += 1;
        // Each function with a shader kind is defined in the listing, under its mangled name.
        let shaders: Vec<_> = lib
            .functions
            .iter()
            .filter(|f| f.shader_kind != ShaderKind::Library)
            .collect();
        assert!(!shaders.is_empty(), "{name}: no shader functions");
        for f in &shaders {
            // Node shaders keep their plain names.
            let mangled = f.name.contains('?');
            let defined = if mangled {
                format!("define void @\"{}\"(", f.name.replace('\u{1}', "\\01"))
            } else {
                format!("define void @{}(", f.name)
            };
            assert!(
                listing.contains(&defined),
                "{name}: {} is not defined in the listing",
                f.name
            );
            let unmangled = if mangled {
                f.name.contains(&format!("?{}@", f.unmangled_name))
            } else {
                f.name == f.unmangled_name
            };
            assert!(
                unmangled,
                "{name}: {} unmangles to {}",
                f.name, f.unmangled_name
            );
            for &r in &f.resources {
                assert!((r as usize) < lib.resources.len());
            }
        }
        functions += shaders.len();
    }
    eprintln!("{libraries} libraries, {functions} shader functions");
    assert!(
        libraries >= 120,
        "expected the corpus's 120 libraries, found {libraries}"
    );
}

#[test]
fn subobjects_read_as_declared() {
    let Some(root) = dxil_corpus::corpus_dir() else {
        return;
    };
    let bytes =
        std::fs::read(root.join("vkd3d-proton/rt/embedded_subobject.lib_6_3.dxil")).unwrap();
    let lib = library(&bytes, "embedded_subobject");
    let find = |n: &str| {
        lib.subobjects
            .iter()
            .find(|s| s.name == n)
            .unwrap_or_else(|| panic!("no subobject {n}: {:?}", lib.subobjects))
    };
    assert_eq!(
        find("config").data,
        SubobjectData::RaytracingShaderConfig {
            max_payload_size: 4,
            max_attribute_size: 8
        }
    );
    assert_eq!(
        find("pconfig").data,
        SubobjectData::RaytracingPipelineConfig {
            max_trace_recursion_depth: 1
        }
    );
    assert_eq!(
        find("phg").data,
        SubobjectData::HitGroup {
            hit_group_type: 1,
            any_hit: String::new(),
            closest_hit: "RayClosestHitAABB".into(),
            intersection: "RayIntersect".into()
        }
    );
    assert_eq!(
        find("exports1").data,
        SubobjectData::SubobjectToExportsAssociation {
            subobject: "grs".into(),
            exports: vec!["thg".into(), "phg".into(), "RayGen".into()]
        }
    );
    let rts0 = |n: &str| match &find(n).data {
        SubobjectData::LocalRootSignature { data }
        | SubobjectData::GlobalRootSignature { data } => data.clone(),
        other => panic!("{n}: {other:?}"),
    };
    for n in ["grs", "grs_dummy", "lrs_raygen", "lrs_other1", "lrs_other2"] {
        assert_eq!(&rts0(n)[..4], &2u32.to_le_bytes(), "{n}: RTS0 version 1.1");
    }
    // Explicit associations, also through the hit groups that hold a shader.
    assert_eq!(
        lib.local_root_signature_of("RayGen"),
        Some(&rts0("lrs_raygen")[..])
    );
    assert_eq!(
        lib.local_root_signature_of("RayClosestHit"),
        Some(&rts0("lrs_other1")[..])
    );
    assert_eq!(
        lib.local_root_signature_of("RayIntersect"),
        Some(&rts0("lrs_other2")[..])
    );
    assert_eq!(lib.local_root_signature_of("Unknown"), None);
}
