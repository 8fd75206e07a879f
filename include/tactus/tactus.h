/// @file tactus.h
/// Umbrella header: everything a Tactus application needs.
#ifndef TACTUS_TACTUS_H
#define TACTUS_TACTUS_H
#include "tactus/base.h"
#include "tactus/math.h"
#include "tactus/types.h"
#include "tactus/debug_draw.h"
#include "tactus/world.h"
#include "tactus/scene.h"
#include "tactus/io.h"
#include "tactus/checkpoint.h"
#include "tactus/quasi.h"
#include "tactus/points.h"
#include "tactus/springs.h"
#endif
