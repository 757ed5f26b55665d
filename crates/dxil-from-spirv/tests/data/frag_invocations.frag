#version 450
#extension GL_EXT_fragment_invocation_density : require

layout (location = 0) out int count;

void main()
{
    count = gl_FragInvocationCountEXT;
}
