/* stb_ds_impl.c — the one place the stb_ds implementation is compiled.
 *
 * Every other tools file includes "stb_ds.h" for the declarations only; the
 * tools (never the runtime) use its growable arrays and string maps.
 */
#define STB_DS_IMPLEMENTATION
#include "stb_ds.h"
