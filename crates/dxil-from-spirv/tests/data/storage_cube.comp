#version 450
// Storage cube images: D3D has no writable cube textures, so both become 2D arrays of faces.
layout(local_size_x = 1) in;
layout(binding = 0, rgba32f) uniform imageCube cube;
layout(binding = 1, r32ui) uniform uimageCubeArray cubes;
layout(binding = 2) buffer Out { ivec2 cube_size; ivec3 cubes_size; uint old; };

void main() {
    vec4 t = imageLoad(cube, ivec3(1, 2, 5));
    imageStore(cube, ivec3(0, 0, 3), t * 2.0);
    old = imageAtomicAdd(cubes, ivec3(3, 4, 13), 1u);
    cube_size = imageSize(cube);
    cubes_size = imageSize(cubes);
}
