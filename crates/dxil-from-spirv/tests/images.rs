//! Image shapes D3D lacks: storage cube and cube-array images (no writable cube textures in
//! D3D) become 2D arrays of their faces, which is how SPIR-V addresses their texels too; only
//! a cube array's size query changes, from faces back to cubes.

mod support;
use support::listing;

#[test]
fn storage_cubes_are_arrays_of_faces() {
    let bytes = include_bytes!("data/storage_cube.spv");
    let out = dxil_from_spirv::translate_bytes(bytes, &Default::default()).unwrap();
    let text = listing(&out.container);
    assert_eq!(text.matches("= type { <4 x float> }").count(), 1, "{text}");
    assert!(
        text.contains("%\"class.RWTexture2DArray<vector<float, 4> >\" = type"),
        "{text}"
    );
    assert!(
        text.contains("%\"class.RWTexture2DArray<unsigned int>\" = type"),
        "{text}"
    );
    assert!(!text.contains("TextureCube"), "{text}");
    // Load, store and atomic take the layer-face as the third coordinate, unchanged.
    assert!(text.contains("i32 undef, i32 1, i32 2, i32 5,"), "{text}");
    assert!(text.contains("i32 0, i32 0, i32 3, float"), "{text}");
    assert!(
        text.contains("i32 0, i32 3, i32 4, i32 13, i32 1)"),
        "{text}"
    );
    // Only the cube array's size divides its layer count by six.
    assert_eq!(text.matches("udiv i32").count(), 1, "{text}");
    assert!(text.contains(", 6\n"), "{text}");
    support::dxv("images", "storage_cube", &out.container);
}
