#version 450
// Input attachments without gl_FragCoord: the translation declares SV_Position itself.
layout(input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput color;
layout(input_attachment_index = 1, set = 0, binding = 1) uniform isubpassInputMS samples;
layout(location = 0) out vec4 result;

void main()
{
    result = subpassLoad(color) + vec4(subpassLoad(samples, 2));
}
