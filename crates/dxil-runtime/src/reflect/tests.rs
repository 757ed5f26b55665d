use super::*;
use rspirv::binary::Assemble;
use rspirv::dr::Builder;
use spirv::{Capability, Dim, ImageFormat};

/// A module with one GLCompute entry point `main` whose interface lists `vars`, built by `body`.
fn module(version: (u8, u8), body: impl FnOnce(&mut Builder) -> Vec<u32>) -> Vec<u32> {
    let mut b = Builder::new();
    b.set_version(version.0, version.1);
    b.capability(Capability::Shader);
    b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    let vars = body(&mut b);
    let void = b.type_void();
    let fn_ty = b.type_function(void, []);
    let main = b
        .begin_function(void, None, spirv::FunctionControl::NONE, fn_ty)
        .unwrap();
    b.begin_block(None).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(spirv::ExecutionModel::GLCompute, main, "main", vars);
    b.execution_mode(main, spirv::ExecutionMode::LocalSize, [8, 2, 1]);
    b.module().assemble()
}

fn bind(b: &mut Builder, var: u32, set: u32, binding: u32) {
    b.decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(set)]);
    b.decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
}

fn block_of_uints(b: &mut Builder, buffer_block: bool) -> u32 {
    let uint = b.type_int(32, 0);
    let rta = b.type_runtime_array(uint);
    let block = b.type_struct([rta]);
    b.decorate(rta, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    b.member_decorate(block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    b.decorate(
        block,
        if buffer_block {
            Decoration::BufferBlock
        } else {
            Decoration::Block
        },
        [],
    );
    block
}

#[test]
fn every_buffer_descriptor_kind() {
    let words = module((1, 5), |b| {
        let uint = b.type_int(32, 0);
        let block = block_of_uints(b, false);
        let ssbo_ptr = b.type_pointer(None, StorageClass::StorageBuffer, block);
        let ssbo = b.variable(ssbo_ptr, None, StorageClass::StorageBuffer, None);
        bind(b, ssbo, 0, 200);
        let float = b.type_float(32);
        let v4 = b.type_vector(float, 4);
        let cb = b.type_struct([v4]);
        b.member_decorate(cb, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        b.decorate(cb, Decoration::Block, []);
        let ubo_ptr = b.type_pointer(None, StorageClass::Uniform, cb);
        let ubo = b.variable(ubo_ptr, None, StorageClass::Uniform, None);
        bind(b, ubo, 1, 0);
        let ro = b.type_image(uint, Dim::DimBuffer, 0, 0, 0, 1, ImageFormat::R32ui, None);
        let rw = b.type_image(
            float,
            Dim::DimBuffer,
            0,
            0,
            0,
            2,
            ImageFormat::Rgba32f,
            None,
        );
        let ro_ptr = b.type_pointer(None, StorageClass::UniformConstant, ro);
        let rw_ptr = b.type_pointer(None, StorageClass::UniformConstant, rw);
        let t = b.variable(ro_ptr, None, StorageClass::UniformConstant, None);
        let u = b.variable(rw_ptr, None, StorageClass::UniformConstant, None);
        bind(b, t, 0, 101);
        bind(b, u, 0, 201);
        b.name(u, "output");
        let sampler = b.type_sampler();
        let c3 = b.constant_bit32(uint, 3);
        let samplers = b.type_array(sampler, c3);
        let s_ptr = b.type_pointer(None, StorageClass::UniformConstant, samplers);
        let s = b.variable(s_ptr, None, StorageClass::UniformConstant, None);
        bind(b, s, 0, 300);
        // Not in the interface: ignored from SPIR-V 1.4 on.
        let unused = b.variable(ssbo_ptr, None, StorageClass::StorageBuffer, None);
        bind(b, unused, 0, 250);
        vec![ssbo, ubo, t, u, s]
    });
    let r = reflect(&words, "main").unwrap();
    assert_eq!(r.entry_point, "main");
    assert_eq!(r.local_size, Some([8, 2, 1]));
    assert_eq!(r.push_constant_size, 0);
    let summary: Vec<(
        u32,
        u32,
        DescriptorKind,
        DescriptorCount,
        Option<ImageFormat>,
    )> = r
        .bindings
        .iter()
        .map(|b| (b.set, b.binding, b.kind, b.count, b.image_format))
        .collect();
    assert_eq!(
        summary,
        [
            (
                0,
                101,
                DescriptorKind::UniformTexelBuffer,
                DescriptorCount::Fixed(1),
                Some(ImageFormat::R32ui)
            ),
            (
                0,
                200,
                DescriptorKind::StorageBuffer,
                DescriptorCount::Fixed(1),
                None
            ),
            (
                0,
                201,
                DescriptorKind::StorageTexelBuffer,
                DescriptorCount::Fixed(1),
                Some(ImageFormat::Rgba32f)
            ),
            (
                0,
                300,
                DescriptorKind::Sampler,
                DescriptorCount::Fixed(3),
                None
            ),
            (
                1,
                0,
                DescriptorKind::UniformBuffer,
                DescriptorCount::Fixed(1),
                None
            ),
        ]
    );
    assert_eq!(r.bindings[2].name.as_deref(), Some("output"));
}

#[test]
fn old_style_buffer_block_and_pre_1_4_interfaces() {
    let words = module((1, 0), |b| {
        let block = block_of_uints(b, true);
        let ptr = b.type_pointer(None, StorageClass::Uniform, block);
        let v = b.variable(ptr, None, StorageClass::Uniform, None);
        bind(b, v, 2, 7);
        // Before 1.4 the interface lists no resources, yet the variable is reflected.
        vec![]
    });
    let r = reflect(&words, "").unwrap();
    assert_eq!(r.bindings.len(), 1);
    assert_eq!(
        (r.bindings[0].set, r.bindings[0].binding, r.bindings[0].kind),
        (2, 7, DescriptorKind::StorageBuffer)
    );
}

#[test]
fn runtime_arrays_and_aliases() {
    let words = module((1, 5), |b| {
        let block = block_of_uints(b, false);
        let arr = b.type_runtime_array(block);
        let ptr = b.type_pointer(None, StorageClass::StorageBuffer, arr);
        let a = b.variable(ptr, None, StorageClass::StorageBuffer, None);
        let ushort = b.type_int(16, 0);
        let rta16 = b.type_runtime_array(ushort);
        let block16 = b.type_struct([rta16]);
        b.decorate(rta16, Decoration::ArrayStride, [Operand::LiteralBit32(2)]);
        b.member_decorate(block16, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        b.decorate(block16, Decoration::Block, []);
        let ptr16 = b.type_pointer(None, StorageClass::StorageBuffer, block16);
        let alias = b.variable(ptr16, None, StorageClass::StorageBuffer, None);
        bind(b, a, 3, 0);
        bind(b, alias, 3, 0);
        vec![a, alias]
    });
    let r = reflect(&words, "main").unwrap();
    assert_eq!(r.bindings.len(), 1);
    assert_eq!(r.bindings[0].count, DescriptorCount::Runtime);
}

#[test]
fn differently_typed_aliases_are_recorded() {
    let words = module((1, 5), |b| {
        let block = block_of_uints(b, false);
        let sptr = b.type_pointer(None, StorageClass::StorageBuffer, block);
        let s = b.variable(sptr, None, StorageClass::StorageBuffer, None);
        let uptr = b.type_pointer(None, StorageClass::Uniform, block);
        let u = b.variable(uptr, None, StorageClass::Uniform, None);
        bind(b, s, 0, 1);
        bind(b, u, 0, 1);
        vec![s, u]
    });
    let r = reflect(&words, "main").unwrap();
    assert_eq!(r.bindings.len(), 1);
    assert_eq!(r.bindings[0].kind, DescriptorKind::StorageBuffer);
    assert_eq!(r.bindings[0].aliases, [DescriptorKind::UniformBuffer]);
}

#[test]
fn push_constant_block_size() {
    let words = module((1, 5), |b| {
        let uint = b.type_int(32, 0);
        let float = b.type_float(32);
        let v3 = b.type_vector(float, 3);
        let c4 = b.constant_bit32(uint, 4);
        let arr = b.type_array(uint, c4);
        b.decorate(arr, Decoration::ArrayStride, [Operand::LiteralBit32(16)]);
        let s = b.type_struct([v3, uint, arr]);
        b.member_decorate(s, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        b.member_decorate(s, 1, Decoration::Offset, [Operand::LiteralBit32(12)]);
        b.member_decorate(s, 2, Decoration::Offset, [Operand::LiteralBit32(16)]);
        b.decorate(s, Decoration::Block, []);
        let ptr = b.type_pointer(None, StorageClass::PushConstant, s);
        let v = b.variable(ptr, None, StorageClass::PushConstant, None);
        vec![v]
    });
    // 16 bytes of vec3 + uint, then 4 elements of stride 16.
    assert_eq!(reflect(&words, "main").unwrap().push_constant_size, 80);
}

#[test]
fn entry_point_errors() {
    let words = module((1, 5), |_| vec![]);
    let e = reflect(&words, "other").unwrap_err();
    assert!(
        e.to_string().contains("`other`") && e.to_string().contains("main"),
        "{e}"
    );
    let e = reflect(&[0x0723_0203, 0x0001_0000], "main").unwrap_err();
    assert!(matches!(e, ReflectError::Parse(_)), "{e}");
    let e = reflect(&[1, 2, 3, 4, 5], "main").unwrap_err();
    assert!(matches!(e, ReflectError::Parse(_)), "{e}");
}

#[test]
fn images_are_reflected_as_images() {
    let words = module((1, 5), |b| {
        let float = b.type_float(32);
        let img = b.type_image(float, Dim::Dim2D, 0, 0, 0, 1, ImageFormat::Unknown, None);
        let ptr = b.type_pointer(None, StorageClass::UniformConstant, img);
        let v = b.variable(ptr, None, StorageClass::UniformConstant, None);
        bind(b, v, 0, 100);
        vec![v]
    });
    let r = reflect(&words, "main").unwrap();
    assert_eq!(
        (r.bindings[0].kind, r.bindings[0].image_format),
        (DescriptorKind::SampledImage, None)
    );
}

#[test]
fn the_conformance_modules_reflect() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/v1");
    let Ok(bytes) = std::fs::read(dir.join("cbuffer_packing.spv")) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI needs {}",
            dir.display()
        );
        eprintln!("SKIPPED: no conformance cases at {}", dir.display());
        return;
    };
    let module = crate::ShaderModule::from_bytes(&bytes, "main").unwrap();
    let r = reflect(&module.words, "main").unwrap();
    let kinds: Vec<(u32, DescriptorKind)> =
        r.bindings.iter().map(|b| (b.binding, b.kind)).collect();
    assert_eq!(
        kinds,
        [
            (0, DescriptorKind::UniformBuffer),
            (200, DescriptorKind::StorageBuffer)
        ]
    );
    assert_eq!(r.local_size, Some([4, 1, 1]));
}
