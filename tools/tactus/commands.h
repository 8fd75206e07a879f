// The tactus command table. A new command adds ONE line to TACTUS_COMMANDS and a file
// defining `int tactus_cmd_<name>(int argc, char** argv)` (argv[0] is the command name).
#ifndef TACTUS_COMMANDS_H
#define TACTUS_COMMANDS_H

#ifdef TACTUS_HAVE_RENDER
#define TACTUS_RENDER_COMMAND_(X) X(render, "render a scene offscreen to PNG frames or a video (no display needed)")
#else
#define TACTUS_RENDER_COMMAND_(X)
#endif
#ifdef TACTUS_HAVE_VIEW
#define TACTUS_VIEW_COMMAND_(X) X(view, "open a scene in the interactive viewer (GLFW window)")
#else
#define TACTUS_VIEW_COMMAND_(X)
#endif

#define TACTUS_COMMANDS(X)                                              \
    X(run, "run a scene headless; write VTK frames and metrics.csv")   \
    X(validate, "check a scene file without running it")              \
    X(info, "print a scene's bodies by kind, masses and totals")      \
    X(resume, "continue a run from a checkpoint (tactus run --checkpoint-every)") \
    TACTUS_VIEW_COMMAND_(X)                                             \
    TACTUS_RENDER_COMMAND_(X)

#define TACTUS_DECLARE_COMMAND_(name, summary) int tactus_cmd_##name(int argc, char** argv);
TACTUS_COMMANDS(TACTUS_DECLARE_COMMAND_)
#undef TACTUS_DECLARE_COMMAND_

#endif
