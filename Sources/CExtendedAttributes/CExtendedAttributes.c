// The module is its header; SwiftPM needs one source file to build a C target.
#include "CExtendedAttributes.h"
