// Named debug-draw layers (command-line --layers and the viewer's number keys).
#ifndef TACTUS_VIEWER_LAYERS_H
#define TACTUS_VIEWER_LAYERS_H
#include <stddef.h>
#include "tactus/tactus.h"

int tc_layer_count(void);
const char* tc_layer_name(int index);
bool* tc_layer_flag(tc_debug_draw* draw, int index);
/// Turns on the comma-separated layers; false (with a message) for an unknown name.
bool tc_layers_parse(const char* list, tc_debug_draw* draw);
#endif
