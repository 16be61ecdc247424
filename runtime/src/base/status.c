/* status.c — printable names for status codes, stages and the version.
 *
 * Switches over string literals instead of tables of pointers: a pointer table
 * would be writable relocated data in a position-independent build, and the
 * runtime promises to have no writable data at all.
 */
#include "crumple/crumple.h"

const char *cr_status_name(cr_status s) {
    switch (s) {
#define CR_X_NAME_(name, msg) \
    case name:                \
        return #name;
        CR_STATUS_LIST(CR_X_NAME_)
#undef CR_X_NAME_
    default:
        return "CR_STATUS_UNKNOWN";
    }
}

const char *cr_status_message(cr_status s) {
    switch (s) {
#define CR_X_MSG_(name, msg) \
    case name:               \
        return msg;
        CR_STATUS_LIST(CR_X_MSG_)
#undef CR_X_MSG_
    default:
        return "unknown status";
    }
}

const char *cr_field_name(cr_field f) {
    switch (f) {
#define CR_X_FIELD_NAME_(name, text) \
    case CR_FIELD_##name:             \
        return text;
        CR_FIELD_LIST(CR_X_FIELD_NAME_)
#undef CR_X_FIELD_NAME_
    default:
        return "unknown field";
    }
}

const char *cr_stage_name(cr_stage s) {
    switch (s) {
#define CR_X_STAGE_NAME_(name) \
    case CR_STAGE_##name:      \
        return #name;
        CR_STAGE_LIST(CR_X_STAGE_NAME_)
#undef CR_X_STAGE_NAME_
    default:
        return "unknown";
    }
}

const char *cr_version_string(void) { return "crumple " CR_VERSION_STRING " (" CR_MODE_NAME ")"; }
