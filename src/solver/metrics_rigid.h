// Rigid-body metrics for scenes (registered in io/metrics.c).
#ifndef TC_METRICS_RIGID_H
#define TC_METRICS_RIGID_H
#include "world/world_internal.h"

/// True when the named body is rigid or static and its first shape is a box (the box metrics' subject).
bool tc_metric_is_box(const tc_world* world, const char* name);
/// m: how deep the named box's lowest corner lies below the first static plane (0 if above).
tc_real tc_metric_box_penetration(const tc_world* world, const char* name);
/// rad: tilt of the named box's face nearest the plane, acos(max_k |n . R e_k|).
tc_real tc_metric_box_alignment(const tc_world* world, const char* name);
#endif
