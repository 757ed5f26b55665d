#version 450
// Input attachments next to gl_FragCoord: both read the one SV_Position element.
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput color;
layout(input_attachment_index = 1, set = 0, binding = 1) uniform usubpassInputMS samples;
layout(location = 0) out vec4 result;

void main()
{
    result = subpassLoad(color) * gl_FragCoord.z + vec4(subpassLoad(samples, gl_SampleID));
}
