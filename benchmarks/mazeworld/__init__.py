"""Independent maze corpus (maze-dataset looks) with ground truth from the maze and the plan."""
