/* SPDX-License-Identifier: MIT */
/*
 * Kernel names as Nsight Systems shows them: the demangled C++ signature
 * (demangledName) and the bare function name (shortName), from the
 * mangled name CUPTI reports. Demangling uses the C++ runtime's
 * __cxa_demangle (libstdc++); names that are not Itanium-mangled
 * (extern "C" kernels) are their own demangled and short names.
 */
#ifndef GM_DEMANGLE_H
#define GM_DEMANGLE_H

/*
 * The demangled form of @mangled, or a copy of @mangled when it is not a
 * mangled C++ name or cannot be demangled. Caller frees.
 */
char *gm_demangle(const char *mangled);

/*
 * The function's bare name from a demangled signature: no return type,
 * no scope, no template arguments, no parameters
 * ("void ns::k<float>(float*)" -> "k"). Caller frees.
 */
char *gm_short_name(const char *demangled);

#endif
