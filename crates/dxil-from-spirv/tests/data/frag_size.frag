#version 450
#extension GL_EXT_fragment_invocation_density : require
#extension GL_EXT_fragment_shading_rate : require

// Built-ins D3D12 computes from other system values: the fragment size from the shading
// rate (sharing its element), the sample position from the sample index (sharing
// gl_SampleID's element).
layout (location = 0) out vec4 o;

void main()
{
    o = vec4(vec2(gl_FragSizeEXT), float(gl_ShadingRateEXT),
             gl_SamplePosition.x + float(gl_SampleID));
}
