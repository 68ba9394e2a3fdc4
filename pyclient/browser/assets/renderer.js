// The main-thread renderer of worker mode: written on main.
