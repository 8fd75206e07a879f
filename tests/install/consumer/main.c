// Drops a sphere for one second through the installed public API only.
#include <stdio.h>
#include <tactus/tactus.h>

int main(void) {
    tc_world_def def = tc_world_def_default();
    tc_error error;
    tc_world* world = tc_world_create(&def, &error);
    if (!world) return 1;
    tc_shape_def sphere = tc_shape_def_default(TC_SHAPE_SPHERE);
    tc_rigid_body_def body = tc_rigid_body_def_default();
    body.shapes = &sphere;
    body.shape_count = 1;
    body.base.pose.p = tc_v3(0, 0, 10);
    tc_body_id id;
    if (tc_rigid_body_create(world, &body, &id, &error) != TC_RESULT_OK) return 1;
    for (int i = 0; i < 60; ++i)
        if (tc_world_step(world, &error) != TC_RESULT_OK) return 1;
    double z = tc_body_get_pose(world, id).p.z;
    // An inline helper of tactus/math.h: sqrt is linked through the package's own flags (-lm).
    double speed = tc_v3_len(tc_body_get_linear_velocity(world, id));
    printf("tactus %s: z after 1 s = %.3f m, speed %.3f m/s\n", tc_version_string(), z, speed);
    tc_world_destroy(world);
    return z < 10 && z > 4 && speed > 9 && speed < 10.5 ? 0 : 1; // free fall: 10 - 9.81/2 = 5.1 m at 9.81 m/s
}
